import Unidirectional

/// A successful authentication step.
public struct AuthenticationResponse: Codable, Equatable, Sendable {
  /// Identifies the session (and, for two-factor, the pending login).
  public var token: String
  /// Whether a two-factor code is needed before the login is complete.
  public var twoFactorRequired: Bool

  /// Creates a response.
  public init(token: String, twoFactorRequired: Bool) {
    self.token = token
    self.twoFactorRequired = twoFactorRequired
  }
}

/// Why authentication failed, in words for the user.
public struct AuthenticationError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The message shown to the user.
  public var message: String

  /// Creates an error.
  public init(_ message: String) { self.message = message }

  /// The message.
  public var description: String { message }
}

/// Logs users in: TicTacToe's dependency for its login screens.
///
/// The live value needs no server: after a short delay on the dependency clock, it accepts the
/// password `password` for any email that contains `@`, asks for a two-factor code when the
/// email contains `2fa` (the code is `1234`), and otherwise fails with a message.
public struct AuthenticationClient: Sendable {
  /// Checks an email and password.
  public var login:
    @Sendable (_ email: String, _ password: String) async throws -> AuthenticationResponse
  /// Checks a two-factor code for the pending login identified by `token`.
  public var twoFactor:
    @Sendable (_ code: String, _ token: String) async throws -> AuthenticationResponse

  /// Creates a client from its two operations.
  public init(
    login: @escaping @Sendable (String, String) async throws -> AuthenticationResponse,
    twoFactor: @escaping @Sendable (String, String) async throws -> AuthenticationResponse
  ) {
    self.login = login
    self.twoFactor = twoFactor
  }
}

extension AuthenticationClient: DependencyKey {
  /// How long the live client takes to answer, on the dependency clock.
  public static let liveDelay = Duration.milliseconds(300)

  /// The offline client described above.
  public static let liveValue = AuthenticationClient(
    login: { email, password in
      @Dependency(\.continuousClock) var clock
      try await clock.sleep(for: liveDelay)
      guard email.contains("@") else {
        throw AuthenticationError("That email address is not valid: it has no '@'.")
      }
      guard password == "password" else {
        throw AuthenticationError("Wrong email or password.")
      }
      let needsTwoFactor = email.contains("2fa")
      return AuthenticationResponse(
        token: needsTwoFactor ? "pending-2fa" : "session", twoFactorRequired: needsTwoFactor)
    },
    twoFactor: { code, token in
      @Dependency(\.continuousClock) var clock
      try await clock.sleep(for: liveDelay)
      guard token == "pending-2fa" else {
        throw AuthenticationError("That login has expired; log in again.")
      }
      guard code == "1234" else { throw AuthenticationError("Wrong two-factor code.") }
      return AuthenticationResponse(token: "session", twoFactorRequired: false)
    })
}

extension DependencyValues {
  /// Logs users in.
  public var authenticationClient: AuthenticationClient {
    get { self[AuthenticationClient.self] }
    set { self[AuthenticationClient.self] = newValue }
  }
}
