import Unidirectional

/// A reference type used as a state value, compared by identity.
final class Model: Sendable {
  let name: String
  init(name: String) { self.name = name }
}

/// A value that is neither Equatable nor a class.
struct Opaque: Sendable {
  var value: Int
}
