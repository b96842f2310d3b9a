import Testing
import UnidirectionalTestSupport

/// Runs `body`, which is expected to record failures, and returns their messages in order.
///
/// Each failure is a known issue of the calling test, so the test fails only if `body` records
/// none (Swift Testing then reports that the known issue did not occur).
func recordedFailures(
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async -> Void
) async -> [Failure] {
  let failures = Log<Failure>()
  await withKnownIssue(sourceLocation: sourceLocation) {
    await body()
  } matching: { issue in
    failures.append(
      Failure(
        message: issue.comments.map(\.rawValue).joined(separator: "\n"),
        line: issue.sourceLocation?.line ?? 0))
    return true
  }
  return failures.values
}

/// A failure a test store recorded.
struct Failure: Sendable, CustomStringConvertible {
  let message: String
  let line: Int

  var headline: Substring { message.prefix { $0 != "\n" } }
  var description: String { "line \(line): \(message)" }
}
