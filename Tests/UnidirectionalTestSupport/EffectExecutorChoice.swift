import Testing
import Unidirectional

/// Where a test runs a store's effects: the parameter of the effect-semantics tests, which must
/// hold on the default executor and on executors a program pins its effects to.
public enum EffectExecutorChoice: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// No executor given: the global concurrent executor.
  case global
  /// A thread of the program's own (`ThreadExecutor`), as a server pins a game's effects.
  case thread
  /// A `TestExecutor`, drained by the test and by the test clocks it is attached to.
  case testExecutor

  public var testDescription: String { rawValue }

  /// Makes the executor (and what a test needs to wait for effects on it).
  public func makeRunner() -> EffectRunner {
    switch self {
    case .global: EffectRunner(executor: nil)
    case .thread: EffectRunner(executor: ThreadExecutor())
    case .testExecutor: EffectRunner(executor: TestExecutor())
    }
  }
}

/// An executor for a store's effects (or none), and how a test lets those effects run.
public final class EffectRunner: Sendable {
  /// The executor to give the store (`nil` for the global one).
  public let executor: (any TaskExecutor)?

  init(executor: (any TaskExecutor)?) {
    self.executor = executor
  }

  deinit {
    (executor as? ThreadExecutor)?.stop()
  }

  /// Lets the effects run until `condition` holds.
  ///
  /// On a test executor, drains it and returns: what was ready has run, a fact. On the global
  /// executor or a thread, the effects run by themselves, so this looks until the condition
  /// holds.
  public func settle(until condition: @escaping @Sendable () -> Bool) async {
    if let testExecutor = executor as? TestExecutor {
      testExecutor.drain()
      return
    }
    // wall-clock: a failure bound of 10 s; a passing run stops looking once the condition holds.
    let deadline = ContinuousClock.now.advanced(by: .seconds(10))
    while !condition(), ContinuousClock.now < deadline {
      await Task.yield()
    }
  }
}
