import Foundation
import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

// The code of the article "Composition and navigation", compiled and run. Every ```swift block
// of the article appears here line for line (`CompositionArticleSnippetTests` checks it).

// MARK: The features of the article

struct Message: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    let id: Int
    var subject: String
    var isRead = false
  }
  enum Action: Equatable, Sendable {
    case markRead
  }
  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    state.isRead = true
    return .none
  }
}

struct Compose: Reducer {
  struct State: Equatable, Sendable {
    var subject = ""
  }
  enum Action: Equatable, Sendable {
    case subjectChanged(String)
    case sendTapped
    case sent
  }
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .subjectChanged(let subject):
      state.subject = subject
      return .none
    case .sendTapped:
      return .run { send in
        await send(.sent)
        await dismiss()  // the parent sets `compose` to nil, and these effects end
      }
    case .sent:
      return .none
    }
  }
}

struct Conversation: Reducer {
  struct State: Equatable, Sendable {
    var messageID: Int
    var replies = 0
  }
  enum Action: Equatable, Sendable {
    case replyTapped
    case backTapped
  }
  @Dependency(\.dismiss) var dismiss

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .replyTapped:
      state.replies += 1
      return .none
    case .backTapped:
      return .run { _ in await dismiss() }  // pops this conversation, and those above it
    }
  }
}

struct Inbox: Reducer {
  struct State: Equatable, Sendable {
    var messages: IdentifiedArray<Message.State> = []
    @PresentationState var compose: Compose.State?
    var path = StackState<Conversation.State>()
  }

  enum Action: Equatable, Sendable {
    case messages(IdentifiedActionOf<Message>)
    case compose(PresentationAction<Compose.Action>)
    case path(StackAction<Conversation.State, Conversation.Action>)
    case composeTapped
    case openTapped(messageID: Int)
  }

  var body: some Reducer<State, Action> {
    Reduce { state, action in
      switch action {
      case .composeTapped:
        state.compose = Compose.State()  // presents the editor
        return .none
      case .openTapped(let messageID):
        state.path.append(Conversation.State(messageID: messageID))  // pushes a conversation
        return .none
      case .compose(.presented(.sent)):
        state.messages.append(Message.State(id: state.messages.count, subject: "sent"))
        return .none
      case .messages, .compose, .path:
        return .none
      }
    }
    .forEach(\.messages, action: .messages) { Message() }
    .ifLet(\.$compose, action: .compose) { Compose() }
    .forEach(\.path, action: .path) { Conversation() }
  }
}

extension CasePath<Inbox.Action, IdentifiedActionOf<Message>> {
  static var messages: Self { .case(Inbox.Action.messages) }
}
extension CasePath<Inbox.Action, PresentationAction<Compose.Action>> {
  static var compose: Self { .case(Inbox.Action.compose) }
}
extension CasePath<Inbox.Action, StackAction<Conversation.State, Conversation.Action>> {
  static var path: Self { .case(Inbox.Action.path) }
}

// MARK: The article's examples, run

@Suite struct CompositionArticleTests {
  @Test func routing() {
    let compose: CasePath<Inbox.Action, PresentationAction<Compose.Action>> = .compose
    #expect(compose.extract(.compose(.dismiss)) == .dismiss)
    #expect(compose.extract(.composeTapped) == nil)
    #expect(compose.embed(.presented(.sendTapped)) == .compose(.presented(.sendTapped)))
  }

  @Test func rowsPresentationAndStack() async {
    let store = Store(initialState: Inbox.State(messages: [Message.State(id: 0, subject: "Hi")])) {
      Inbox()
    }
    store.send(.messages(.element(id: 0, action: .markRead)))
    #expect(store.messages[id: 0]?.isRead == true)

    store.send(.composeTapped)
    #expect(store.compose == Compose.State())
    await store.send(.compose(.presented(.sendTapped))).finish()
    #expect(store.compose == nil)
    #expect(store.messages.count == 2)

    store.send(.openTapped(messageID: 0))
    store.send(.openTapped(messageID: 1))
    let first = store.path.ids[0]
    await store.send(.path(.element(id: first, action: .backTapped))).finish()
    #expect(store.path.isEmpty)
  }
}
