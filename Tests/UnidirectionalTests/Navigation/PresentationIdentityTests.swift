import Testing

@testable import Unidirectional

/// Which writes of a `PresentationState` start a new presentation (whose predecessor's effects
/// are cancelled) and which keep it.
@Suite struct PresentationIdentityTests {
  enum Destination: Equatable, Sendable {
    case editor(String)
    case confirmation(Int)
    case alert
  }

  struct Row: Equatable, Sendable, Identifiable {
    var id: Int
    var title = ""
  }

  @Test func anotherCaseOfAnEnumDestinationIsANewPresentation() {
    var state = PresentationState<Destination>(wrappedValue: .editor("a"))
    let first = state.presentationID
    state.wrappedValue = .editor("b")  // the same case, edited
    #expect(state.presentationID == first)
    state.wrappedValue = .confirmation(1)
    let second = state.presentationID
    #expect(second != first)
    state.wrappedValue = .alert
    #expect(state.presentationID != second)
    #expect(state.presentationID != nil)
  }

  @Test func anotherIDIsANewPresentationAndTheSameIDIsNot() {
    var state = PresentationState<Row>(wrappedValue: Row(id: 1))
    let first = state.presentationID
    state.wrappedValue?.title = "edited"
    #expect(state.presentationID == first)
    state.wrappedValue = Row(id: 1, title: "replaced")
    #expect(state.presentationID == first)
    state.wrappedValue = Row(id: 2)
    #expect(state.presentationID != first)
  }

  @Test func dismissingAndPresentingAgainIsANewPresentation() {
    var state = PresentationState<Int>(wrappedValue: 1)
    let first = state.presentationID
    state.wrappedValue = 2  // not an enum, not Identifiable: the same presentation
    #expect(state.presentationID == first)
    state.wrappedValue = nil
    #expect(state.presentationID == nil)
    state.wrappedValue = 2
    #expect(state.presentationID != nil && state.presentationID != first)
  }
}
