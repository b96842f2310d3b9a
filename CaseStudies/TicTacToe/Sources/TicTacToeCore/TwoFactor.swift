import CaseStudySupport
import Unidirectional

/// The two-factor screen: a code for the pending login, sent to the `AuthenticationClient`.
public struct TwoFactor: Reducer {
  /// The two-factor screen's state.
  public struct State: Equatable, Sendable {
    /// The pending login's token.
    public var token: String
    /// The code typed so far.
    public var code: String
    /// Whether the code is being checked.
    public var isRequestInFlight: Bool
    /// The last failure, for the user.
    public var error: String?

    /// Creates the screen for the pending login `token`.
    public init(
      token: String, code: String = "", isRequestInFlight: Bool = false, error: String? = nil
    ) {
      self.token = token
      self.code = code
      self.isRequestInFlight = isRequestInFlight
      self.error = error
    }

    /// Whether the code can be submitted: not blank, and no request in flight.
    public var canSubmit: Bool { !code.trimmed.isEmpty && !isRequestInFlight }
  }

  /// What the user and the request can do.
  public enum Action: Codable, Equatable, Sendable {
    /// The user typed a code. A `Secret`: action logs write it redacted, and it never prints.
    case codeChanged(Secret<String>)
    /// The user submits the code.
    case submitButtonTapped
    /// The code was accepted: the login is complete (the app moves on).
    case twoFactorSucceeded(AuthenticationResponse)
    /// The code was refused.
    case twoFactorFailed(String)
  }

  @Dependency(\.authenticationClient) var authenticationClient

  /// Creates the feature.
  public init() {}

  /// Handles one action.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .codeChanged(let code):
      guard !state.isRequestInFlight else { return .none }
      state.code = code.value
      return .none
    case .submitButtonTapped:
      guard state.canSubmit else { return .none }
      state.isRequestInFlight = true
      state.error = nil
      let (code, token) = (String(state.code.trimmed), state.token)
      return .run { [authenticationClient] send in
        await send(.twoFactorSucceeded(try await authenticationClient.twoFactor(code, token)))
      } catch: { error, send in
        await send(.twoFactorFailed("\(error)"))
      }
    case .twoFactorSucceeded:
      state.isRequestInFlight = false
      return .none
    case .twoFactorFailed(let message):
      state.isRequestInFlight = false
      state.error = message
      return .none
    }
  }
}
