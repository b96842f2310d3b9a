import Testing
import Unidirectional
import XCTest

/// Where in a test a step was written, for failures reported at that line.
struct TestSourceLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt
}

/// Records test failures with the test framework that is running the current test.
enum TestFailure {
  /// Records `message` as a failure at `location`: `Issue.record` inside a Swift Testing test,
  /// `XCTFail` otherwise (XCTest).
  static func record(_ message: String, at location: TestSourceLocation) {
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: String(describing: location.fileID),
          filePath: String(describing: location.filePath),
          line: Int(location.line),
          column: Int(location.column)))
    } else {
      XCTFail(message, file: location.filePath, line: location.line)
    }
  }

  /// A message in the test store's shape: the headline, a blank line, the diff of the dumps of
  /// `expected` and `actual`, and the legend.
  static func message(_ headline: String, expected: Any, actual: Any) -> String {
    let diff =
      LineDiff.diff(expected: ValueDump.dump(expected), actual: ValueDump.dump(actual))
      ?? "    (no difference in the dumps: the values differ in a way the dump does not show)"
    return headline + "\n\n" + diff + "\n\n(Expected: −, Actual: +)"
  }

  /// A headline followed by a blank line and `values`, each dumped and indented.
  static func message(_ headline: String, listing values: [Any]) -> String {
    ([headline, ""] + values.map(indented)).joined(separator: "\n")
  }

  /// The dump of `value`, indented by four spaces.
  static func indented(_ value: Any) -> String {
    ValueDump.dump(value).split(separator: "\n", omittingEmptySubsequences: false)
      .map { "    " + $0 }.joined(separator: "\n")
  }
}

extension TestFailure {
  /// Records `message` as a known issue inside a Swift Testing test (shown, but not failing),
  /// or prints it under XCTest, which has no known issues on this platform.
  static func recordKnownIssue(_ message: String, at location: TestSourceLocation) {
    if Test.current != nil {
      withKnownIssue {
        record(message, at: location)
      }
    } else {
      print("Skipped assertion at \(location.fileID):\(location.line): \(message)")
    }
  }
}
