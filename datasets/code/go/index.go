// Package index implements Lumen's in-memory inverted index (the memtable).
package index

import (
	"errors"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// ErrClosed is returned by operations on a closed index.
var ErrClosed = errors.New("index: closed")

// Posting records one occurrence of a term in a document.
type Posting struct {
	DocID    string
	Position int
}

// Tokenizer splits text into terms.
type Tokenizer interface {
	Tokenize(text string) []string
}

// SimpleTokenizer lowercases and splits on anything that is not a letter or digit.
type SimpleTokenizer struct{}

// Tokenize implements Tokenizer.
func (SimpleTokenizer) Tokenize(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// MemIndex is a concurrency-safe inverted index held in memory.
type MemIndex struct {
	mu        sync.RWMutex
	postings  map[string][]Posting
	tokenizer Tokenizer
	closed    bool
}

// NewMemIndex creates an empty index using the given tokenizer.
func NewMemIndex(t Tokenizer) *MemIndex {
	if t == nil {
		t = SimpleTokenizer{}
	}
	return &MemIndex{postings: make(map[string][]Posting), tokenizer: t}
}

// Add indexes the text of one document.
func (m *MemIndex) Add(docID, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for pos, term := range m.tokenizer.Tokenize(text) {
		m.postings[term] = append(m.postings[term], Posting{DocID: docID, Position: pos})
	}
	return nil
}

// Search returns the IDs of documents containing every term of the query,
// sorted by ID.
func (m *MemIndex) Search(query string) ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	var result map[string]bool
	for _, term := range m.tokenizer.Tokenize(query) {
		docs := map[string]bool{}
		for _, p := range m.postings[term] {
			if result == nil || result[p.DocID] {
				docs[p.DocID] = true
			}
		}
		result = docs
	}
	ids := make([]string, 0, len(result))
	for id := range result {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// Terms returns the number of distinct terms.
func (m *MemIndex) Terms() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.postings)
}

// Close releases the index; later calls return ErrClosed.
func (m *MemIndex) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.postings = nil
	return nil
}
