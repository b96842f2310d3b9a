/// A command line the program cannot run with.
public struct ArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong, in one line.
  public let message: String

  /// Creates an error.
  ///
  /// - Parameter message: What is wrong, in one line.
  public init(_ message: String) {
    self.message = message
  }

  /// The message.
  public var description: String { message }
}
