import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// `StoreTask`s of actions that were queued because another thread was processing the store.
@Suite struct StoreTaskTests {
  /// A store whose observer blocks the draining thread on the first action, so that the test
  /// can send while the store is busy.
  final class BusyStore: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let log = Log<String>()
    /// Lets the effect of action 5 send 6.
    let gate = Gate()
    let store: Store<Int, Int>
    let token: ObservationToken

    init() {
      let (log, gate) = (self.log, self.gate)
      let store = Store(initialState: 0) {
        Reduce<Int, Int> { state, action in
          state = action
          switch action {
          case 2: return .run { _ in log.append("effect ran") }
          case 3:
            return .run { _ in
              await waitForCancellation()
              log.append("effect cancelled")
            }
          case 5:
            return .run { send in
              await gate.wait()
              await send(6)
              log.append("send returned")
            }
          case 6:
            log.append("6 reduced")
            return .none
          default: return .none
          }
        }
      }
      let (entered, release) = (self.entered, self.release)
      self.token = store.observe {
        if store.state == 1 {
          entered.signal()
          release.wait()
        }
      }
      self.store = store
    }

    /// Sends 1 from a thread of its own, which then blocks inside the observer.
    func occupy() {
      let store = self.store
      Thread.detachNewThread { store.send(1) }
      entered.wait()
    }
  }

  @Test func aQueuedSendFinishesWithItsEffects() async {
    let busy = BusyStore()
    busy.occupy()
    let task = busy.store.send(2)
    #expect(busy.store.state == 1)  // Queued, not reduced re-entrantly.
    #expect(!task.isCancelled)
    busy.release.signal()
    await task.finish()
    #expect(busy.log.values == ["effect ran"])
    #expect(busy.store.state == 2)
  }

  @Test func cancellingAQueuedSendCancelsItsEffectsOnceTheyStart() async {
    let busy = BusyStore()
    busy.occupy()
    let task = busy.store.send(3)
    task.cancel()
    #expect(task.isCancelled)
    busy.release.signal()
    await task.finish()
    #expect(busy.log.values == ["effect cancelled"])
  }

  @Test func aQueuedSendWithoutEffectsFinishesAtOnce() async {
    let busy = BusyStore()
    busy.occupy()
    let task = busy.store.send(4)
    busy.release.signal()
    await task.finish()
    #expect(busy.store.state == 4)
    #expect(task.isCancelled)  // Reduced, and started no work.
  }

  @Test func anEffectsSendReturnsOnceTheQueuedActionIsReduced() async {
    let busy = BusyStore()
    let task = busy.store.send(5)
    busy.occupy()
    busy.gate.open()  // The effect sends 6, which queues behind 1.
    while !busy.store.hasQueuedActions { await Task.yield() }
    busy.release.signal()
    await task.finish()
    #expect(busy.store.state == 6)
    // Had the send returned once queued, the effect would have ended before 6 was reduced.
    #expect(busy.log.values == ["6 reduced", "send returned"])
  }
}
