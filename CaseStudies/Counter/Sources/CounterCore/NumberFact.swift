import Unidirectional

/// Computes a fact about a number: the counter's dependency for its "fact" button.
///
/// The live value works offline (there is no network): after a short delay on the dependency
/// clock, to behave like a request, it says whether the number is perfect, prime or a square,
/// or else something about its digits.
public struct NumberFact: Sendable {
  /// Returns a fact about a number.
  public var fact: @Sendable (Int) async throws -> String

  /// Creates a number-fact client from a function.
  public init(fact: @escaping @Sendable (Int) async throws -> String) {
    self.fact = fact
  }

  /// A one-sentence fact about `number`, computed at once.
  public static func offlineFact(about number: Int) -> String {
    if number == 0 { return "0 is neither positive nor negative." }
    if number < 0 {
      return "\(number) is negative; its magnitude has \(digits(of: number).count) digit(s)."
    }
    if isPerfect(number) { return "\(number) is a perfect number: the sum of its divisors." }
    // Trial division stays under a million steps; larger numbers get the other facts.
    if number <= 1_000_000_000_000, isPrime(number) { return "\(number) is a prime number." }
    if let root = squareRoot(of: number) { return "\(number) is a square: \(root) × \(root)." }
    let digits = digits(of: number)
    return "\(number) has \(digits.count) digit(s) that add up to \(digits.reduce(0, +))."
  }

  private static func digits(of number: Int) -> [Int] {
    String(number.magnitude).compactMap(\.wholeNumberValue)
  }

  private static func isPrime(_ number: Int) -> Bool {
    guard number >= 2 else { return false }
    var divisor = 2
    while divisor <= number / divisor {
      if number % divisor == 0 { return false }
      divisor += 1
    }
    return true
  }

  private static func squareRoot(of number: Int) -> Int? {
    var root = Int(Double(number).squareRoot())
    while root > 0, root > number / root { root -= 1 }
    while (root + 1) <= number / (root + 1) { root += 1 }
    return root * root == number ? root : nil
  }

  private static func isPerfect(_ number: Int) -> Bool {
    // Every perfect number that fits in an Int is even and one of these.
    [6, 28, 496, 8128, 33_550_336, 8_589_869_056, 137_438_691_328, 2_305_843_008_139_952_128]
      .contains(number)
  }
}

extension NumberFact: DependencyKey {
  /// Computes the fact offline after 0.3 seconds on the dependency clock.
  public static let liveValue = NumberFact { number in
    @Dependency(\.continuousClock) var clock
    try await clock.sleep(for: .milliseconds(300))
    return offlineFact(about: number)
  }

  /// Computes the fact at once, without waiting on a clock.
  public static let testValue = NumberFact { offlineFact(about: $0) }
}

extension DependencyValues {
  /// Computes number facts for the counter.
  public var numberFact: NumberFact {
    get { self[NumberFact.self] }
    set { self[NumberFact.self] = newValue }
  }
}
