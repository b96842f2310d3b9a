/// A program's arguments, read one at a time, with the checks every TicTacToe program makes of
/// them: a flag's value, a number, a port.
///
/// ```swift
/// var arguments = ArgumentList(CommandLine.arguments.dropFirst(), refusing: usageError)
/// while let argument = arguments.next() {
///   switch argument {
///   case "--port": port = arguments.port(of: argument, allowingZero: true)
///   case "--idle-timeout": idleTimeout = arguments.number(of: argument, as: Double.self)
///   …
/// ```
public struct ArgumentList {
  private var remaining: ArraySlice<String>
  private let refuse: (String) -> Never

  /// Reads `arguments`; `refuse` is called with what is wrong (it prints the usage and exits).
  public init(_ arguments: some Sequence<String>, refusing refuse: @escaping (String) -> Never) {
    self.remaining = ArraySlice(arguments)
    self.refuse = refuse
  }

  /// The next argument, or `nil` after the last.
  public mutating func next() -> String? {
    remaining.popFirst()
  }

  /// The value after `flag`; refused if there is none.
  public mutating func value(of flag: String) -> String {
    guard let value = remaining.popFirst() else { refuse("\(flag) needs a value") }
    return value
  }

  /// The value after `flag`, as a number of type `T`; refused if it is not one.
  public mutating func number<T: LosslessStringConvertible>(of flag: String, as type: T.Type) -> T {
    let text = value(of: flag)
    guard let number = T(text) else { refuse("\(flag): not a number: \(text)") }
    return number
  }

  /// The value after `flag`, as a port: 1 to 65535, or 0 (a free one) if `allowingZero`.
  public mutating func port(of flag: String, allowingZero: Bool) -> UInt16 {
    // Read as any integer first, so that 99999 is said to be out of range, not no number.
    let requested = number(of: flag, as: Int.self)
    guard let port = UInt16(exactly: requested), allowingZero || port > 0 else {
      refuse(
        "\(flag): \(requested) is out of range: a port is 1 to 65535"
          + (allowingZero ? " (0 picks a free one)" : ""))
    }
    return port
  }
}
