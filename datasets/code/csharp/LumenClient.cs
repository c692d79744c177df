using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Net.Http.Json;
using System.Threading;
using System.Threading.Tasks;

namespace Lumen.Client
{
    /// <summary>How a search result list is ordered.</summary>
    public enum SortMode
    {
        Relevance,
        Newest,
        Oldest,
    }

    /// <summary>Options for <see cref="ICollection{T}.SearchAsync"/>.</summary>
    public record SearchOptions(int Limit = 10, int Offset = 0, SortMode Sort = SortMode.Relevance);

    /// <summary>One ranked result.</summary>
    public readonly struct SearchHit<T>
    {
        public SearchHit(string id, double score, T document)
        {
            Id = id;
            Score = score;
            Document = document;
        }

        public string Id { get; }
        public double Score { get; }
        public T Document { get; }
    }

    /// <summary>Operations on one collection.</summary>
    public interface ICollection<T>
    {
        string Name { get; }
        Task InsertAsync(T document, CancellationToken ct = default);
        Task<IReadOnlyList<SearchHit<T>>> SearchAsync(string text, SearchOptions? options = null, CancellationToken ct = default);
    }

    /// <summary>HTTP client for a Lumen server.</summary>
    public sealed class LumenClient : IDisposable
    {
        private readonly HttpClient _http;

        /// <summary>Creates a client for <paramref name="baseAddress"/>, authenticating with <paramref name="apiKey"/>.</summary>
        public LumenClient(Uri baseAddress, string apiKey)
        {
            _http = new HttpClient { BaseAddress = baseAddress };
            _http.DefaultRequestHeaders.Authorization = new("Bearer", apiKey);
        }

        public ICollection<T> Collection<T>(string name) => new RemoteCollection<T>(this, name);

        public void Dispose() => _http.Dispose();

        /// <summary>Collection handle backed by the HTTP API. Nested so it can reach the HttpClient.</summary>
        private sealed class RemoteCollection<T> : ICollection<T>
        {
            private readonly LumenClient _owner;

            public RemoteCollection(LumenClient owner, string name)
            {
                _owner = owner;
                Name = name;
            }

            public string Name { get; }

            public async Task InsertAsync(T document, CancellationToken ct = default)
            {
                using var res = await _owner._http.PostAsJsonAsync($"/v1/index?collection={Uri.EscapeDataString(Name)}", document, ct);
                res.EnsureSuccessStatusCode();
            }

            public async Task<IReadOnlyList<SearchHit<T>>> SearchAsync(string text, SearchOptions? options = null, CancellationToken ct = default)
            {
                options ??= new SearchOptions();
                var url = $"/v1/search?collection={Uri.EscapeDataString(Name)}&q={Uri.EscapeDataString(text)}&limit={options.Limit}&offset={options.Offset}";
                var body = await _owner._http.GetFromJsonAsync<SearchResponse>(url, ct)
                           ?? throw new InvalidOperationException("empty response");
                var hits = new List<SearchHit<T>>(body.Hits.Count);
                foreach (var h in body.Hits)
                {
                    hits.Add(new SearchHit<T>(h.Id, h.Score, h.Doc));
                }
                return hits;
            }

            private sealed class SearchResponse
            {
                public List<RawHit> Hits { get; set; } = new();
            }

            private sealed class RawHit
            {
                public string Id { get; set; } = "";
                public double Score { get; set; }
                public T Doc { get; set; } = default!;
            }
        }
    }

    public static class RetryPolicy
    {
        /// <summary>Exponential backoff capped at <paramref name="cap"/>.</summary>
        public static TimeSpan Backoff(int attempt, TimeSpan? cap = null)
        {
            var ms = Math.Min((cap ?? TimeSpan.FromSeconds(5)).TotalMilliseconds, 100 * Math.Pow(2, attempt));
            return TimeSpan.FromMilliseconds(ms);
        }
    }
}
