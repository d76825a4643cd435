import Foundation

/// What makes two names look alike, in one place: the characters a phone draws as nothing (they
/// would let "Pitch\u{34F} 1" stand beside "Pitch 1", or a player be named by a blank), and the
/// form two names are compared in for uniqueness.
public enum VisibleText {
    /// Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) and the blank Braille pattern (U+2800):
    /// letters by category, drawn as blanks.
    static let blankLetters: Set<UInt32> = [0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800]

    /// Default-ignorable code points (combining grapheme joiner, variation selectors, …) and
    /// the blank letters above.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isDefaultIgnorableCodePoint || blankLetters.contains(scalar.value)
    }

    /// The form uniqueness is judged on: NFKC, case-folded, invisible code points removed, so
    /// "ＰＩＴＣＨ 1" and "pitch 1" are the same name.
    public static func comparisonKey(_ text: String) -> String {
        let folded = text.precomposedStringWithCompatibilityMapping.folding(options: .caseInsensitive, locale: nil)
        var key = String.UnicodeScalarView()
        key.append(contentsOf: folded.unicodeScalars.lazy.filter { !isInvisible($0) })
        return String(key)
    }
}
