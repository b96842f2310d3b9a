import Foundation
import Unidirectional

/// What the counter keeps between runs, in a file shared by every counter process of the user:
/// the step that `+` and `-` add and subtract.
public struct CounterSettings: Codable, Equatable, Sendable {
  /// What `+` adds and `-` subtracts.
  public var step: Int

  /// The smallest and largest steps `step N` accepts.
  public static let steps = 1...1_000_000

  /// Settings with `step`.
  ///
  /// - Parameter step: What `+` adds and `-` subtracts.
  public init(step: Int = 1) {
    self.step = step
  }

  /// The settings file: `$COUNTER_SETTINGS` if set and not empty, else `~/.counter.json`.
  ///
  /// - Parameter environment: The process's environment.
  public static func path(environment: [String: String]) -> String {
    if let path = environment["COUNTER_SETTINGS"], !path.isEmpty { return path }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return (home as NSString).appendingPathComponent(".counter.json")
  }

  /// The file format: JSON, refusing a step `step N` would not have set (the file is then
  /// reported and left as it is, and the counter uses step 1).
  public static let format = SharedFileFormat<CounterSettings>(
    encode: { try SharedFileFormat<CounterSettings>.json.encode($0) },
    decode: { data in
      let settings = try SharedFileFormat<CounterSettings>.json.decode(data)
      guard steps.contains(settings.step) else {
        throw SettingsError(
          description: "the step \(settings.step) is not from \(steps.lowerBound) to "
            + "\(steps.upperBound)")
      }
      return settings
    })

  /// The shared settings in the file at `path`.
  ///
  /// - Parameter path: The settings file (see ``path(environment:)``).
  public static func shared(at path: String) -> Shared<CounterSettings> {
    Shared(.file(path, format: format), default: CounterSettings())
  }

  /// Why a settings file was refused.
  struct SettingsError: Error, CustomStringConvertible {
    let description: String
  }
}
