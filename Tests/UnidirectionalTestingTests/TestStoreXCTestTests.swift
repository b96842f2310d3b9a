import Unidirectional
import UnidirectionalTesting
import XCTest

/// Under XCTest the test store reports through `XCTFail`, at the line of the step.
///
/// This case captures its own failures (by overriding `recordFailure`) to check them, so the
/// failures it provokes do not fail it.
final class TestStoreXCTestTests: XCTestCase {
  private var captured: [(message: String, line: Int)] = []
  private var isCapturing = false

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
    expected: Bool
  ) {
    guard isCapturing else {
      super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
      return
    }
    // XCTFail prefixes the message with "failed - ".
    let message = description.hasPrefix("failed - ") ? description.dropFirst(9) : description[...]
    captured.append((String(message), lineNumber))
  }

  func testAPassingTestRecordsNothing() async {
    isCapturing = true
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.observe("count") { _ = $0.count }
    await store.send(.increment, fires: ["count"]) { $0.count = 1 }
    await store.send(.factButtonTapped)
    await store.receive(.factResponse("1 is a test number.")) { $0.fact = "1 is a test number." }
    await store.finish()
    isCapturing = false
    XCTAssertTrue(captured.isEmpty, "\(captured)")
  }

  func testAMismatchFailsAtTheLineOfTheStep() async {
    isCapturing = true
    let store = TestStore(initialState: Feature.State()) { Feature() }
    store.observe("name") { _ = $0.name }
    let line = #line + 1
    await store.send(.increment, fires: ["name"]) { $0.count = 2 }
    isCapturing = false
    XCTAssertEqual(captured.map(\.line), [line, line])
    XCTAssertEqual(
      captured.map { $0.message.prefix { $0 != "\n" } },
      ["Expected observers did not fire.", "State change does not match expectation:"])
  }

  func testEndOfTestChecksRunWhenTheStoreIsReleased() async {
    isCapturing = true
    do {
      let store = TestStore(initialState: Feature.State()) { Feature() }
      await store.send(.sendTwice).finish()
    }
    isCapturing = false
    XCTAssertEqual(
      captured.map { $0.message.prefix { $0 != "\n" } },
      ["The store received 2 unexpected action(s) by the end of the test:"])
  }
}
