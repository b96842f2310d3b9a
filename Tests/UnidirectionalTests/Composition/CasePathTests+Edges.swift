import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

// Case paths at their edges: payloads never routed (existentials, functions), closures that are
// not constructors, reference counts, layouts of non-enums, and constructors of a wider type.

extension CasePathTests {
  enum Existential: Sendable {
    case error(any Error & Sendable)
    case any(any Sendable)
    case closure(@Sendable (Int) -> Int)
    case number(Int)
  }

  struct SampleError: Error, Equatable {}

  @Test func existentialAndFunctionPayloads() {
    let error = CasePath<Existential, any Error & Sendable>(Existential.error)
    let any = CasePath<Existential, any Sendable>(Existential.any)
    let number = CasePath(Existential.number)
    #expect(error.extract(.error(SampleError())) as? SampleError == SampleError())
    #expect(error.extract(.any(SampleError())) == nil)
    #expect(any.extract(.any(5)) as? Int == 5)
    #expect(any.extract(.number(5)) == nil)
    // A closure in a case is stored for direct arguments, in generic code for indirect ones:
    // reading one as the other would call it wrongly, so function payloads are not routed.
    #expect(EnumLayout.of(Existential.self, withPayload: (@Sendable (Int) -> Int).self) == nil)
    #expect(number.extract(.closure { $0 }) == nil)
    #expect(number.extract(.number(3)) == 3)
  }

  @Test func aClosureThatIsNotAConstructorIsSafe() {
    // Embeds into `.text` after changing the value: extraction finds `.text` payloads, and
    // nothing else; it never reads another case's payload as a String. (A payload that does
    // not embed back, such as "abc", stops a debug build: see `CasePathRoundTripTests`.)
    let path = CasePath<Mixed, String> { Mixed.text($0.uppercased()) }
    #expect(path.extract(.text("ABC")) == "ABC")
    #expect(path.extract(.otherText("abc")) == nil)
    #expect(path.extract(.number(1)) == nil)
    // Embeds into a case whose payload is not a String: matches nothing.
    let elsewhere = CasePath<Mixed, String> { _ in Mixed.first }
    #expect(elsewhere.extract(.text("abc")) == nil)
    #expect(elsewhere.extract(.first) == nil)
  }

  @Test func theCaseSpelling() {
    func route(_ path: CasePath<Mixed, String>) -> String? { path.extract(.otherText("x")) }
    #expect(route(.case(Mixed.otherText)) == "x")
    #expect(route(.case(Mixed.text)) == nil)
  }

  enum Boxes: Sendable {
    indirect case reference(Reference)
    case inline(Reference)
    case number(Int)
  }

  @Test func extractionBalancesReferenceCounts() {
    let leaks = LeakTracker()
    do {
      let boxed = Reference(1)
      let inline = Reference(2)
      leaks.track(boxed, "the boxed reference")
      leaks.track(inline, "the inline reference")
      let boxedPath = CasePath(Boxes.reference)
      let inlinePath = CasePath(Boxes.inline)
      let values: [Boxes] = [.reference(boxed), .inline(inline), .number(3)]
      for _ in 0..<1_000 {
        for value in values {
          _ = boxedPath.extract(value)
          _ = inlinePath.extract(value)
        }
      }
      #expect(boxedPath.extract(values[0]) === boxed)
      #expect(inlinePath.extract(values[1]) === inline)
      #expect(boxedPath.extract(values[1]) == nil)
    }
    // An extraction that retained without releasing would keep them alive; one that released
    // too often would have crashed above.
    #expect(leaks.alive == [])
  }

  @Test func layoutsAreReadOnceAndRejectNonEnums() {
    #expect(EnumLayout.of(Int.self, withPayload: Int.self) == nil)
    #expect(EnumLayout.of(Large.self, withPayload: Int.self) == nil)
    // No case of Inner has a Large payload.
    #expect(EnumLayout.of(Inner.self, withPayload: Large.self) == nil)
    #expect(EnumLayout.of(Inner.self, withPayload: String.self)?.cases.count == 3)
  }
}

/// A constructor whose parameter is wider than the case path's value (Swift converts
/// `(Int?) -> E` to `(Int) -> E`) names a case that is not the only one with an `Int` payload
/// in disguise: only re-embedding the payload tells the cases apart.
@Suite struct WiderConstructorTests {
  enum Contravariant: Sendable {
    case maybe(Int?)
    case plain(Int)
  }
  enum Existential: Sendable {
    case any(any Sendable)
    case int(Int)
  }

  @Test func aConstructorTakingAWiderTypeMatchesOnlyItsOwnCase() {
    let maybe: CasePath<Contravariant, Int> = .case(Contravariant.maybe)
    #expect(maybe.extract(.plain(5)) == nil)
    let any: CasePath<Existential, Int> = .case(Existential.any)
    #expect(any.extract(.int(7)) == nil)
  }
}
