package dev.lumen.index;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Buffers documents for one collection and commits them as a single segment.
 *
 * <p>Only one {@code IndexWriter} may be open per collection. It is not thread-safe;
 * use one writer per loader thread and a separate collection per writer.</p>
 */
public class IndexWriter implements Closeable {

    /** Lifecycle of a writer. */
    public enum State { OPEN, COMMITTING, CLOSED }

    /** Tuning knobs for a writer. Immutable; build with {@link Options.Builder}. */
    public static final class Options {
        private final long bufferSizeBytes;
        private final String analyzer;

        private Options(Builder b) {
            this.bufferSizeBytes = b.bufferSizeBytes;
            this.analyzer = b.analyzer;
        }

        public long bufferSizeBytes() { return bufferSizeBytes; }

        public String analyzer() { return analyzer; }

        public static Builder builder() { return new Builder(); }

        /** Fluent builder for {@link Options}. */
        public static final class Builder {
            private long bufferSizeBytes = 256L * 1024 * 1024;
            private String analyzer = "standard";

            public Builder bufferSize(long bytes) {
                if (bytes <= 0) throw new IllegalArgumentException("bufferSize must be positive");
                this.bufferSizeBytes = bytes;
                return this;
            }

            public Builder analyzer(String name) {
                this.analyzer = Objects.requireNonNull(name);
                return this;
            }

            public Options build() { return new Options(this); }
        }
    }

    /** Thrown when the same document id is added twice before a commit. */
    public static class DuplicateIdException extends RuntimeException {
        public DuplicateIdException(String id) {
            super("duplicate _id in writer: " + id);
        }
    }

    private final String collection;
    private final Options options;
    private final List<Map<String, Object>> buffer = new ArrayList<>();
    private final Set<String> seenIds = new HashSet<>();
    private long bufferedBytes;
    private State state = State.OPEN;

    /** Creates a writer with default options. */
    public IndexWriter(String collection) {
        this(collection, Options.builder().build());
    }

    /** Creates a writer for {@code collection} with the given options. */
    public IndexWriter(String collection, Options options) {
        this.collection = Objects.requireNonNull(collection);
        this.options = Objects.requireNonNull(options);
    }

    /**
     * Buffers one document.
     *
     * @param doc the document; must contain a string {@code _id}
     * @throws DuplicateIdException if the id was already added since the last commit
     */
    public void add(Map<String, Object> doc) {
        ensureOpen();
        String id = (String) doc.get("_id");
        if (!seenIds.add(id)) throw new DuplicateIdException(id);
        buffer.add(doc);
        bufferedBytes += estimateSize(doc);
        if (bufferedBytes >= options.bufferSizeBytes()) {
            flushSegment();
        }
    }

    /** Publishes every buffered document atomically. */
    public void commit() throws IOException {
        ensureOpen();
        state = State.COMMITTING;
        flushSegment();
        seenIds.clear();
        state = State.OPEN;
    }

    /** Discards everything buffered since the last commit. */
    public void abort() {
        buffer.clear();
        seenIds.clear();
        bufferedBytes = 0;
    }

    @Override
    public void close() throws IOException {
        if (state != State.CLOSED) {
            commit();
            state = State.CLOSED;
        }
    }

    public String collection() { return collection; }

    private void flushSegment() {
        // A real implementation sorts terms and writes docs.bin, terms.fst and postings.bin.
        buffer.clear();
        bufferedBytes = 0;
    }

    private void ensureOpen() {
        if (state == State.CLOSED) throw new IllegalStateException("writer is closed");
    }

    private static long estimateSize(Map<String, Object> doc) {
        return doc.toString().length() * 2L;
    }
}
