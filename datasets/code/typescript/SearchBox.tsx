import React, { useEffect, useState } from "react";
import { LumenClient, SearchHit } from "./client";

interface Ticket {
  _id: string;
  title: string;
  body: string;
}

export interface SearchBoxProps {
  client: LumenClient;
  collection: string;
  /** Milliseconds to wait after the last keystroke before searching. */
  debounceMs?: number;
  onSelect?: (id: string) => void;
}

/** Renders one hit with its highlighted snippet. */
function HitRow({ hit, onSelect }: { hit: SearchHit<Ticket>; onSelect?: (id: string) => void }) {
  return (
    <li className="hit" onClick={() => onSelect?.(hit.id)}>
      <strong>{hit.doc.title}</strong>
      <span className="score">{hit.score.toFixed(2)}</span>
      {hit.snippets?.map((s, i) => <p key={i} dangerouslySetInnerHTML={{ __html: s }} />)}
    </li>
  );
}

/** A search-as-you-type box over one Lumen collection. */
export function SearchBox({ client, collection, debounceMs = 200, onSelect }: SearchBoxProps) {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<SearchHit<Ticket>[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!query.trim()) {
      setHits([]);
      return;
    }
    const timer = setTimeout(async () => {
      try {
        const result = await client.collection<Ticket>(collection).search(query, { highlight: true, limit: 20 });
        setHits(result);
        setError(null);
      } catch (e) {
        setError(String(e));
      }
    }, debounceMs);
    return () => clearTimeout(timer);
  }, [client, collection, query, debounceMs]);

  return (
    <div className="search-box">
      <input value={query} placeholder="Search tickets…" onChange={(e) => setQuery(e.target.value)} />
      {error && <div className="error">{error}</div>}
      <ul>
        {hits.map((hit) => (
          <HitRow key={hit.id} hit={hit} onSelect={onSelect} />
        ))}
      </ul>
    </div>
  );
}

export default SearchBox;
