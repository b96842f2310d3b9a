import Foundation
import UnidirectionalTestSupport

/// Environments for running the `counter` executable in tests: its settings file is one of the
/// test's own, never the user's `~/.counter.json`.
enum CounterEnvironment {
  /// This process's environment, with a settings file no other run uses.
  static var isolated: [String: String] {
    isolated(ProcessInfo.processInfo.environment)
  }

  /// `environment`, with a settings file no other run uses.
  static func isolated(_ environment: [String: String]) -> [String: String] {
    var environment = environment
    environment["COUNTER_SETTINGS"] = temporaryFilePath("counter-settings")
    return environment
  }
}
