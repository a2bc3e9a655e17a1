import Foundation
@testable import LectorPipeline
import Testing

/// A rule's expression (issue 39): ICU's syntax as NSRegularExpression reads it, and a
/// step limit that ends a backtracking search instead of holding the camera.
@Suite("Rule expressions")
struct RuleExpressionTests {
    @Test("matches and groups are NSRegularExpression's", arguments: [
        ("^([0-9]{3,4})([0-9]{4})$", "12345678"),
        ("kWh", "total 12 kWh today"),
        ("(?i)^exit$", "EXIT"),
        ("(a)|(b)", "b"),
        ("\\p{Lu}\\w+", "das Wort Grün"),
        ("é(.)", "café𝄞x"),
        ("^(\\d+) ?(x)?$", "42"),
        ("nothing", "here"),
    ])
    func sameAsFoundation(pattern: String, text: String) throws {
        let foundation = try NSRegularExpression(pattern: pattern)
        let whole = text as NSString
        let expected: [Range<Int>?]? = foundation.firstMatch(in: text, range: NSRange(location: 0, length: whole.length)).map { result in
            (0..<result.numberOfRanges).map { index in
                let range = result.range(at: index)
                return range.location == NSNotFound ? nil : range.location..<(range.location + range.length)
            }
        }
        let outcome = try RuleExpression(pattern).firstMatch(in: text)
        if let expected {
            #expect(outcome == .match(expected), "the same match and groups as NSRegularExpression")
        } else {
            #expect(outcome == .noMatch, "no match, as NSRegularExpression")
        }
    }

    @Test("a backtracking pattern gives up at the step limit; the same pattern still matches a line it fits", arguments: [
        ("^(a|aa)+$", String(repeating: "a", count: 64) + "!", String(repeating: "a", count: 64)),
        ("^([0-9]+ ?)+$", String(repeating: "1", count: 40) + "X", "12 345 6789"),
        ("^(\\w+\\s?)*$", String(repeating: "word ", count: 12) + "!", "two words"),
        ("^(\\d+)*$", String(repeating: "7", count: 40) + "-", "7"),
    ])
    func limit(pattern: String, hostile: String, fitting: String) throws {
        let expression = try RuleExpression(pattern)
        #expect(expression.firstMatch(in: hostile) == .limitExceeded, "the hostile line ends the search")
        guard case let .match(ranges) = expression.firstMatch(in: fitting) else {
            Issue.record("a fitting line still matches")
            return
        }
        #expect(ranges.first == 0..<fitting.utf16.count, "the whole line")
        #expect(expression.firstMatch(in: hostile) == .limitExceeded, "and again on the next frame")
    }

    @Test("the rewrites --check-config suggests fail the hostile line within the limit", arguments: [
        "^([0-9]++ ?)+$", "^(?>[0-9]+ ?)+$", "^[0-9 ]+$",
    ])
    func rewrites(pattern: String) throws {
        let expression = try RuleExpression(pattern)
        #expect(expression.firstMatch(in: String(repeating: "1", count: 40) + "X") == .noMatch)
        #expect(expression.firstMatch(in: "12 345 6789") != .noMatch)
    }

    @Test("a pattern that does not compile says why")
    func compileError() {
        #expect(throws: RuleExpression.CompileError.self) { try RuleExpression("([0-9]") }
        #expect(RuleSpec.patternProblem("([0-9]") != nil)
        #expect(RuleSpec.patternProblem("^[0-9]+$") == nil)
    }

    @Test("nested quantifiers are found", arguments: [
        ("^([0-9]+ ?)+$", true),
        ("(a*)*", true),
        ("((ab)+c)*", true),
        ("(x+){2,}", true),
        ("(?:\\d+,)+", true),
        ("^[0-9]+( [0-9]+)*$", true),
        ("^([0-9]++ ?)+$", false),
        ("^(?>[0-9]+ ?)+$", false),
        ("^([0-9]{1,9}+ ?)+$", false),
        ("^([0-9]{3,4})([0-9]{4})$", false),
        ("(a|aa)+", false),
        ("\\(a+\\)+", false),
        ("[(a+)]+", false),
        ("(a+)?", false),
        ("(ab){3}", false),
        ("kWh", false),
    ])
    func nested(pattern: String, expected: Bool) {
        #expect(RuleExpression.hasNestedQuantifier(pattern) == expected)
        #expect((RuleSpec.patternWarning(pattern) != nil) == expected)
    }
}
