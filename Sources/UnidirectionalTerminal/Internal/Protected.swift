import Foundation

/// A value guarded by an `NSLock` (which ThreadSanitizer understands, unlike `Mutex` on Linux).
final class Protected<Value>: @unchecked Sendable {
  // Safe: `value` is read and written only inside `withLock`, while holding `lock`.
  private var value: Value
  private let lock = NSLock()

  init(_ value: Value) {
    self.value = value
  }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
