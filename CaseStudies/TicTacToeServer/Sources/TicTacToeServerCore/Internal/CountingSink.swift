import Foundation
import Synchronization
import Unidirectional

/// A file sink that counts its flushes.
final class CountingSink: ActionLogSink {
  let base: ActionLogFileSink
  let flushes = Atomic<Int>(0)

  init(_ base: ActionLogFileSink) {
    self.base = base
  }

  func write(_ lines: Data) throws(ActionLogError) {
    try base.write(lines)
  }

  func flush() throws(ActionLogError) {
    try base.flush()
    flushes.add(1, ordering: .relaxed)
  }
}
