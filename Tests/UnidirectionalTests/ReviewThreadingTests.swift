import Foundation
import Synchronization
import Testing
import Unidirectional
import UnidirectionalTestSupport

@Suite struct ReviewThreadingTests {
  /// An observer registered while another thread processes actions makes its first run as a
  /// reader, one read at a time: an action committed between two reads gives the run values of
  /// two different states (`count` of one, `other` of the next), which no committed state ever
  /// had. The reducer keeps `count == other`.
  @Test(.timeLimit(.minutes(1)))
  func reviewFirstRunOnAnotherThreadSeesOneState() throws {
    let store = makeReviewStore()
    let ownerBusy = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let committed = DispatchSemaphore(value: 0)
    // Keeps the sending thread busy (owning the store) after the first action, and says when
    // the second is committed.
    let blocker = store.observe {
      let count = store.count
      if count == 1 {
        ownerBusy.signal()
        _ = release.wait(timeout: .now() + 10)
      } else if count == 2 {
        committed.signal()
      }
    }
    let sender = Thread {
      store.send(ReviewAction { $0.count = 1; $0.other = 1 })
    }
    sender.start()
    ownerBusy.wait()
    // Queued: the sender's thread will reduce it once its observer returns.
    store.send(ReviewAction { $0.count = 2; $0.other = 2 })
    let seen = Log<String>()
    let once = Atomic<Bool>(false)
    let token = store.observe {
      let count = store.count
      if !once.exchange(true, ordering: .relaxed) {
        release.signal()
        _ = committed.wait(timeout: .now() + 10)
      }
      let other = store.other
      seen.append("\(count),\(other)")
    }
    for entry in seen.values {
      let parts = entry.split(separator: ",")
      #expect(parts[0] == parts[1], "a run saw count and other of different states: \(seen.values)")
    }
    withExtendedLifetime((blocker, token)) {}
  }
}
