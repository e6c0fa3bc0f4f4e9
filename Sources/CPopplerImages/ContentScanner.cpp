// The content stream scanner (ContentScanner.h).

#include "ContentScanner.h"

#include <cstdlib>

namespace cdx_core {

byte_source::~byte_source() {
    if (started && index < streams.size()) {
        streams[index]->close();
    }
}

bool byte_source::fill() {
    while (index < streams.size()) {
        Stream *stream = streams[index];
        if (!started) {
            stream->reset();
            started = true;
        }
        const int read = stream->doGetChars(static_cast<int>(sizeof buffer), buffer);
        if (read > 0) {
            length = read;
            position = 0;
            return true;
        }
        stream->close();
        started = false;
        ++index;
    }
    length = position = 0;
    return false;
}

namespace {

/// PDF's white-space characters.
bool is_space(int c) { return c == 0 || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '; }

/// PDF's delimiters.
bool is_delimiter(int c) {
    return c == '(' || c == ')' || c == '<' || c == '>' || c == '[' || c == ']' || c == '{' || c == '}' ||
           c == '/' || c == '%';
}

/// The value of a hexadecimal digit, or -1.
int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// A token's kind.
enum class kind { end, name, string, dict_open, dict_close, array_open, array_close, keyword };

/// One token: its kind and, for a name or keyword, its text (a name decoded, without the slash).
struct token {
    kind type = kind::end;
    std::string text;
};

/// Longer names and keywords are cut (they are compared with short ones only).
constexpr size_t maximum_text = 127;

/// Splits a content stream into tokens.
class lexer {
public:
    explicit lexer(byte_source &source) : source(source) {}

    /// The next token (`kind::end` at the end).
    token next() {
        token result;
        int c = skip_space();
        // A stray closing parenthesis: poppler's lexer skips it too.
        while (c == ')') {
            c = skip_space();
        }
        if (c < 0) {
            return result;
        }
        switch (c) {
        case '/':
            result.type = kind::name;
            read_name(result.text);
            break;
        case '(':
            result.type = kind::string;
            skip_string();
            break;
        case '<':
            if (source.peek() == '<') {
                source.get();
                result.type = kind::dict_open;
            } else {
                result.type = kind::string;
                while ((c = source.get()) >= 0 && c != '>') {
                }
            }
            break;
        case '>':
            if (source.peek() == '>') source.get();
            result.type = kind::dict_close;
            break;
        case '[':
        case '{':
            result.type = kind::array_open;
            break;
        case ']':
        case '}':
            result.type = kind::array_close;
            break;
        default:
            result.type = kind::keyword;
            result.text.push_back(static_cast<char>(c));
            while ((c = source.peek()) >= 0 && !is_space(c) && !is_delimiter(c)) {
                source.get();
                if (result.text.size() < maximum_text) result.text.push_back(static_cast<char>(c));
            }
        }
        return result;
    }

    /// The byte source (inline image data is read from it directly).
    byte_source &bytes() { return source; }

private:
    /// Skips white space and comments; the first other byte (taken), or -1.
    int skip_space() {
        for (;;) {
            int c = source.get();
            if (c == '%') {
                while ((c = source.get()) >= 0 && c != '\n' && c != '\r') {
                }
            }
            if (c < 0 || !is_space(c)) {
                return c;
            }
        }
    }

    /// A name's characters after the slash, #xx escapes decoded.
    void read_name(std::string &text) {
        int c;
        while ((c = source.peek()) >= 0 && !is_space(c) && !is_delimiter(c)) {
            source.get();
            if (c == '#') {
                const int high = hex_value(source.peek());
                if (high >= 0) {
                    source.get();
                    const int low = hex_value(source.peek());
                    if (low >= 0) {
                        source.get();
                        c = high * 16 + low;
                    } else {
                        c = high;
                    }
                }
            }
            if (text.size() < maximum_text) text.push_back(static_cast<char>(c));
        }
    }

    /// Skips a literal string after its opening parenthesis (nested parentheses, escapes).
    void skip_string() {
        int depth = 1;
        int c;
        while (depth > 0 && (c = source.get()) >= 0) {
            if (c == '\\') {
                source.get();
            } else if (c == '(') {
                ++depth;
            } else if (c == ')') {
                --depth;
            }
        }
    }

    byte_source &source;
};

/// The number in a keyword token, or -1 when it is not a non-negative number (a real truncated).
long long number(const token &value) {
    if (value.type != kind::keyword || value.text.empty()) return -1;
    char *end = nullptr;
    const double parsed = std::strtod(value.text.c_str(), &end);
    if (end == value.text.c_str() || *end != '\0' || !(parsed >= 0) || parsed > 9.0e18) return -1;
    return static_cast<long long>(parsed);
}

/// The components of an inline image's colour space name (0: unknown, a resource's name).
int components(const std::string &name) {
    if (name == "G" || name == "DeviceGray" || name == "I" || name == "Indexed" || name == "CalGray") return 1;
    if (name == "RGB" || name == "DeviceRGB" || name == "CalRGB" || name == "Lab") return 3;
    if (name == "CMYK" || name == "DeviceCMYK") return 4;
    return 0;
}

/// Skips the rest of an array or dictionary whose opening token was read (nested ones too),
/// noting in `first_name` the first name directly inside it and in `last_name` the last.
void skip_group(lexer &tokens, std::string *first_name, std::string *last_name) {
    int depth = 1;
    while (depth > 0) {
        const token item = tokens.next();
        switch (item.type) {
        case kind::end:
            return;
        case kind::array_open:
        case kind::dict_open:
            ++depth;
            break;
        case kind::array_close:
        case kind::dict_close:
            --depth;
            break;
        case kind::name:
            if (depth == 1 && first_name != nullptr && first_name->empty()) *first_name = item.text;
            if (depth == 1 && last_name != nullptr) *last_name = item.text;
            break;
        default:
            break;
        }
    }
}

/// Reads an inline image's dictionary after BI, up to and including ID; false at the end.
bool read_inline_dictionary(lexer &tokens, inline_image &image) {
    for (;;) {
        token key = tokens.next();
        if (key.type == kind::end) return false;
        if (key.type == kind::keyword && key.text == "ID") return true;
        if (key.type != kind::name) continue;
        token value = tokens.next();
        if (value.type == kind::end) return false;
        if (value.type == kind::keyword && value.text == "ID") return true;
        const std::string &name = key.text;
        if (name == "W" || name == "Width") {
            image.width = number(value);
        } else if (name == "H" || name == "Height") {
            image.height = number(value);
        } else if (name == "BPC" || name == "BitsPerComponent") {
            image.bits = number(value);
        } else if (name == "IM" || name == "ImageMask") {
            image.mask = value.type == kind::keyword && value.text == "true";
        } else if (name == "CS" || name == "ColorSpace") {
            if (value.type == kind::name) {
                image.components = components(value.text);
            } else if (value.type == kind::array_open) {
                std::string family;
                skip_group(tokens, &family, nullptr);
                // [/I base hival lookup]: one index a pixel; other families: unknown here.
                image.components = family == "I" || family == "Indexed" ? 1 : 0;
            }
        } else if (name == "F" || name == "Filter") {
            if (value.type == kind::name) {
                image.filter = value.text;
            } else if (value.type == kind::array_open) {
                skip_group(tokens, nullptr, &image.filter);
            }
        } else if (value.type == kind::array_open || value.type == kind::dict_open) {
            skip_group(tokens, nullptr, nullptr);
        }
    }
}

/// Skips an inline image's data after ID and its EI. Unfiltered data of a known length is skipped
/// by length first (it may hold "EI"); then, as for filtered data, the first "EI" between white
/// space (or the end) ends it.
void skip_inline_data(byte_source &bytes, const inline_image &image) {
    // One white-space byte follows ID.
    if (is_space(bytes.peek())) bytes.get();
    const long long components = image.mask ? 1 : image.components;
    const long long bits = image.mask ? 1 : image.bits;
    if (image.filter.empty() && components > 0 && bits > 0 && bits <= 16 && image.width > 0 && image.height > 0 &&
        image.width <= (1LL << 24) && image.height <= (1LL << 24)) {
        const long long row = (image.width * components * bits + 7) / 8;
        for (long long left = row * image.height; left > 0 && bytes.get() >= 0; --left) {
        }
    }
    int before = ' ';
    for (;;) {
        const int c = bytes.get();
        if (c < 0) return;
        if (c == 'E' && is_space(before) && bytes.peek() == 'I') {
            bytes.get();
            const int after = bytes.peek();
            if (after < 0 || is_space(after) || is_delimiter(after)) return;
            before = 'I';
            continue;
        }
        before = c;
    }
}

}  // namespace

void scan_content(byte_source &source, content_handler &handler) {
    lexer tokens(source);
    token previous;
    for (;;) {
        token current = tokens.next();
        if (current.type == kind::end) return;
        if (current.type == kind::keyword) {
            if (current.text == "Do" && previous.type == kind::name) {
                if (!handler.paint(previous.text)) return;
            } else if (current.text == "BI") {
                inline_image image;
                if (!read_inline_dictionary(tokens, image)) return;
                skip_inline_data(source, image);
                if (!handler.paint_inline(image)) return;
            }
        }
        previous = std::move(current);
    }
}

}  // namespace cdx_core
