import CaseStudySupport
import Unidirectional

/// The login screen: email and password, checked by the `AuthenticationClient`, with a
/// two-factor screen on top when the account needs one.
public struct Login: Reducer {
  /// The login screen's state.
  public struct State: Equatable, Sendable {
    /// The email typed so far.
    public var email = ""
    /// The password typed so far.
    public var password = ""
    /// Whether the email and password are being checked.
    public var isLoginRequestInFlight = false
    /// The last failure, for the user.
    public var error: String?
    /// The two-factor screen, while a login waits for its code.
    public var twoFactor: TwoFactor.State?

    /// Creates an empty login screen.
    public init(
      email: String = "", password: String = "", isLoginRequestInFlight: Bool = false,
      error: String? = nil, twoFactor: TwoFactor.State? = nil
    ) {
      self.email = email
      self.password = password
      self.isLoginRequestInFlight = isLoginRequestInFlight
      self.error = error
      self.twoFactor = twoFactor
    }

    /// Whether the form can be sent: email and password not blank.
    public var isFormValid: Bool { !email.trimmed.isEmpty && !password.trimmed.isEmpty }
  }

  /// What the user and the request can do.
  public enum Action: Codable, Equatable, Sendable {
    /// The user typed an email.
    case emailChanged(String)
    /// The user typed a password. A `Secret`: action logs write it redacted, and it never
    /// prints.
    case passwordChanged(Secret<String>)
    /// The user logs in; ignored unless the form is valid and no request is in flight.
    case loginButtonTapped
    /// The email and password were accepted (the app moves on, or asks for two-factor).
    case loginSucceeded(AuthenticationResponse)
    /// The email and password were refused.
    case loginFailed(String)
    /// An action of the two-factor screen.
    case twoFactor(TwoFactor.Action)
    /// The user left the two-factor screen; a code being checked is abandoned.
    case twoFactorDismissed
  }

  @Dependency(\.authenticationClient) var authenticationClient

  /// Creates the feature.
  public init() {}

  /// Handles the screen's actions, and runs the two-factor screen while it is shown.
  public var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .emailChanged(let email):
        guard !state.isLoginRequestInFlight else { return .none }
        state.email = email
        return .none
      case .passwordChanged(let password):
        guard !state.isLoginRequestInFlight else { return .none }
        state.password = password.value
        return .none
      case .loginButtonTapped:
        guard state.isFormValid, !state.isLoginRequestInFlight else { return .none }
        state.isLoginRequestInFlight = true
        state.error = nil
        let (email, password) = (String(state.email.trimmed), state.password)
        return .run { [authenticationClient] send in
          await send(.loginSucceeded(try await authenticationClient.login(email, password)))
        } catch: { error, send in
          await send(.loginFailed("\(error)"))
        }
      case .loginSucceeded(let response):
        state.isLoginRequestInFlight = false
        if response.twoFactorRequired { state.twoFactor = TwoFactor.State(token: response.token) }
        return .none
      case .loginFailed(let message):
        state.isLoginRequestInFlight = false
        state.error = message
        return .none
      case .twoFactorDismissed:
        state.twoFactor = nil
        return .none
      case .twoFactor:
        return .none
      }
    }
    .ifLet(\.twoFactor, action: .twoFactor) { TwoFactor() }
  }
}

extension CasePath where Root == Login.Action {
  /// Routes two-factor actions.
  public static var twoFactor: CasePath<Login.Action, TwoFactor.Action> {
    .case(Login.Action.twoFactor)
  }
}
