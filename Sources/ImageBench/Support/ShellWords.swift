import Foundation

/// Splits an argument string the way a POSIX shell would for plain words, 'single' and "double"
/// quotes and backslash escapes (no expansion), so `--candidate-args "--inject 'latency=+25%'"` works.
public enum ShellWords {
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    public static func split(_ text: String) throws(ParseError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in text {
            if escaped {
                word.append(character); escaped = false; inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else if character == "\\" && open == "\"" { escaped = true } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character; inWord = true
            } else if character == "\\" {
                escaped = true
            } else if character.isWhitespace {
                if inWord { words.append(word); word = ""; inWord = false }
            } else {
                word.append(character); inWord = true
            }
        }
        guard quote == nil, !escaped else { throw ParseError(description: "unbalanced quote or trailing backslash in '\(text)'") }
        if inWord { words.append(word) }
        return words
    }

    /// `word` as a shell reads it back: as it is when it holds only safe characters, else in
    /// single quotes (a quote inside closed, escaped and reopened).
    public static func quoted(_ word: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=+%@×")
        guard !word.isEmpty, !word.contains(where: { !safe.contains($0) }) else {
            return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        return word
    }
}
