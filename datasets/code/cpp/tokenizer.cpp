// tokenizer.cpp - Lumen's standard tokenizer: word boundaries for alphabetic
// scripts, overlapping character bigrams for CJK text.
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace lumen::analysis {

/// Script class of a code point, as far as tokenization cares.
enum class Script { Latin, Cjk, Digit, Other };

/// One token with its position in the token stream.
struct Token {
    std::u32string text;
    std::uint32_t position;
};

/// Splits text into tokens. Stateless; safe to share between threads.
class StandardTokenizer {
public:
    /// Options for the tokenizer.
    struct Options {
        bool lowercase = true;
        std::size_t max_token_length = 255;
    };

    StandardTokenizer() : StandardTokenizer(Options{}) {}
    explicit StandardTokenizer(Options options) : options_(options) {}

    /// Tokenizes UTF-32 text.
    std::vector<Token> tokenize(std::u32string_view text) const {
        std::vector<Token> out;
        std::u32string word;
        std::uint32_t pos = 0;
        char32_t prev_cjk = 0;
        auto flush_word = [&] {
            if (!word.empty() && word.size() <= options_.max_token_length)
                out.push_back({word, pos++});
            word.clear();
        };
        for (char32_t c : text) {
            switch (classify(c)) {
            case Script::Cjk:
                flush_word();
                if (prev_cjk) out.push_back({std::u32string{prev_cjk, c}, pos++});
                prev_cjk = c;
                break;
            case Script::Latin:
            case Script::Digit:
                if (prev_cjk) emit_single(out, prev_cjk, pos);
                prev_cjk = 0;
                word.push_back(options_.lowercase ? fold(c) : c);
                break;
            default:
                if (prev_cjk) emit_single(out, prev_cjk, pos);
                prev_cjk = 0;
                flush_word();
            }
        }
        if (prev_cjk) emit_single(out, prev_cjk, pos);
        flush_word();
        return out;
    }

    static Script classify(char32_t c) {
        if (c >= U'0' && c <= U'9') return Script::Digit;
        if ((c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') || (c >= 0xC0 && c <= 0x24F)) return Script::Latin;
        if (c >= 0x4E00 && c <= 0x9FFF) return Script::Cjk;
        return Script::Other;
    }

private:
    /// Lowercases ASCII and Latin-1 letters (É -> é); other scripts are left alone.
    static char32_t fold(char32_t c) {
        if (c >= U'A' && c <= U'Z') return c + 32;
        if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
        return c;
    }

    /// A lone CJK character at the end of a run is emitted only if no bigram covered it.
    void emit_single(std::vector<Token>& out, char32_t c, std::uint32_t& pos) const {
        if (out.empty() || out.back().text.size() != 2 || out.back().text[1] != c)
            out.push_back({std::u32string{c}, pos++});
    }

    Options options_;
};

}  // namespace lumen::analysis

#ifdef TOKENIZER_SELFTEST
int test_bigrams() {
    lumen::analysis::StandardTokenizer t;
    auto toks = t.tokenize(U"系统架构 Café");
    // 系统 统架 架构 café
    return toks.size() == 4 && toks[2].text == U"架构" && toks[3].text == U"café" ? 0 : 1;
}

int main() {
    int rc = test_bigrams();
    std::cout << (rc ? "FAIL" : "ok") << "\n";
    return rc;
}
#endif
