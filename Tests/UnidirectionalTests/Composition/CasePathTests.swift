import Testing
import UnidirectionalTestSupport

@testable import Unidirectional

/// Case paths made from a constructor alone (`CasePath(Root.case)`), over every enum layout the
/// compiler makes: each is checked against every value of its enum, so that a case path
/// matches its own case and no other, and gives back the payload it embedded.
@Suite struct CasePathTests {
  // MARK: Enums of every layout

  final class Reference: Equatable, Sendable {
    let number: Int
    init(_ number: Int) { self.number = number }
    static func == (lhs: Reference, rhs: Reference) -> Bool { lhs === rhs }
  }

  struct Large: Equatable, Sendable {
    var a = 1, b = 2, c = 3, d = 4, e = 5, f = 6
    var name = "large"
  }

  struct Empty: Equatable, Sendable {}

  enum Inner: Equatable, Sendable {
    case plain
    case number(Int)
    case text(String)
  }

  /// Multi-payload, with spare bits in pointers (class, string), payload-less cases around them,
  /// two cases with the same payload type, tuples, a labelled single value, an `indirect` case.
  enum Mixed: Equatable, Sendable {
    case first
    case text(String)
    case otherText(String)
    case number(Int)
    case reference(Reference)
    case inner(Inner)
    case pair(Int, String)
    case labelled(id: Int, name: String)
    case single(value: Int)
    case large(Large)
    case empty(Empty)
    case optional(String?)
    indirect case boxed(String)
    indirect case boxedLarge(Large)
    case last
  }

  indirect enum Tree: Equatable, Sendable {
    case leaf(Int)
    case node(Tree, Tree)
    case label(String)
    case empty
  }

  enum Generic<Element: Equatable & Sendable>: Equatable, Sendable {
    case element(Element)
    case elements([Element])
    case nothing
    case text(String)
  }

  /// One payload case: the tag lives in the payload's extra inhabitants.
  enum SinglePayload: Equatable, Sendable {
    case reference(Reference)
    case none
    case other
  }

  enum OnlyCase: Equatable, Sendable {
    case only(String)
  }

  enum Small: Equatable, Sendable {
    case flag(Bool)
    case byte(UInt8)
    case nothing
  }

  enum Nested: Equatable, Sendable {
    case mixed(Mixed)
    case tree(Tree)
    case generic(Generic<String>)
    case plain
  }

  // MARK: The oracle

  /// A value of an enum with the index of its case.
  struct Sample<Root> {
    let value: Root
    let caseIndex: Int
  }

  /// A case path with the index of the case it is for, checked against every sample.
  struct Route<Root> {
    let caseIndex: Int
    let check: (Root, Bool) -> Void
  }

  static func route<Root, Value: Equatable>(
    _ caseIndex: Int, _ embed: @escaping @Sendable (Value) -> Root,
    _ payloadOf: @escaping (Root) -> Value?,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Route<Root> {
    let path = CasePath(embed)
    return Route(caseIndex: caseIndex) { root, isSameCase in
      let extracted = path.extract(root)
      if isSameCase {
        #expect(extracted != nil, "\(root) not matched", sourceLocation: sourceLocation)
        #expect(extracted == payloadOf(root), sourceLocation: sourceLocation)
      } else {
        #expect(
          extracted == nil, "\(root) matched case \(caseIndex)", sourceLocation: sourceLocation)
      }
    }
  }

  static func checkAll<Root>(_ samples: [Sample<Root>], _ routes: [Route<Root>]) {
    for sample in samples {
      for route in routes {
        route.check(sample.value, sample.caseIndex == route.caseIndex)
      }
    }
  }

  // MARK: Tests

  @Test func mixedLayout() {
    let reference = Reference(7)
    let samples: [Sample<Mixed>] = [
      .init(value: .first, caseIndex: 0),
      .init(value: .text("hello, a string too long to be stored inline"), caseIndex: 1),
      .init(value: .text("small"), caseIndex: 1),
      .init(value: .otherText("other"), caseIndex: 2),
      .init(value: .number(-1), caseIndex: 3),
      .init(value: .number(0), caseIndex: 3),
      .init(value: .reference(reference), caseIndex: 4),
      .init(value: .inner(.plain), caseIndex: 5),
      .init(value: .inner(.text("in")), caseIndex: 5),
      .init(value: .pair(1, "one"), caseIndex: 6),
      .init(value: .labelled(id: 2, name: "two"), caseIndex: 7),
      .init(value: .single(value: 3), caseIndex: 8),
      .init(value: .large(Large()), caseIndex: 9),
      .init(value: .empty(Empty()), caseIndex: 10),
      .init(value: .optional(nil), caseIndex: 11),
      .init(value: .optional("some"), caseIndex: 11),
      .init(value: .boxed("in a box"), caseIndex: 12),
      .init(value: .boxedLarge(Large(a: 9, name: "boxed")), caseIndex: 13),
      .init(value: .last, caseIndex: 14),
    ]
    Self.checkAll(
      samples,
      [
        Self.route(1, Mixed.text) { if case .text(let v) = $0 { v } else { nil } },
        Self.route(2, Mixed.otherText) { if case .otherText(let v) = $0 { v } else { nil } },
        Self.route(3, Mixed.number) { if case .number(let v) = $0 { v } else { nil } },
        Self.route(4, Mixed.reference) { if case .reference(let v) = $0 { v } else { nil } },
        Self.route(5, Mixed.inner) { if case .inner(let v) = $0 { v } else { nil } },
        Self.route(8, Mixed.single) { if case .single(let v) = $0 { v } else { nil } },
        Self.route(9, Mixed.large) { if case .large(let v) = $0 { v } else { nil } },
        Self.route(10, Mixed.empty) { if case .empty(let v) = $0 { v } else { nil } },
        Self.route(11, Mixed.optional) { if case .optional(let v) = $0 { v } else { nil } },
        Self.route(12, Mixed.boxed) { if case .boxed(let v) = $0 { v } else { nil } },
        Self.route(13, Mixed.boxedLarge) { if case .boxedLarge(let v) = $0 { v } else { nil } },
      ])
  }

  @Test func tuplePayloads() {
    let pair = CasePath<Mixed, (Int, String)>(Mixed.pair)
    let labelled = CasePath<Mixed, (id: Int, name: String)>(Mixed.labelled)
    let unlabelled = CasePath<Mixed, (Int, String)>(Mixed.labelled)
    #expect(pair.extract(.pair(1, "one")).map { [$0.0 == 1, $0.1 == "one"] } == [true, true])
    #expect(pair.extract(.labelled(id: 1, name: "one")) == nil)
    #expect(
      labelled.extract(.labelled(id: 2, name: "two")).map { $0.id == 2 && $0.name == "two" } == true
    )
    #expect(labelled.extract(.pair(2, "two")) == nil)
    #expect(unlabelled.extract(.labelled(id: 3, name: "three")).map { $0.0 == 3 } == true)
    #expect(pair.embed((4, "four")) == .pair(4, "four"))
  }

  @Test func indirectEnum() {
    let samples: [Sample<Tree>] = [
      .init(value: .leaf(1), caseIndex: 0),
      .init(value: .node(.leaf(1), .node(.label("deep"), .empty)), caseIndex: 1),
      .init(value: .label("label"), caseIndex: 2),
      .init(value: .empty, caseIndex: 3),
    ]
    Self.checkAll(
      samples,
      [
        Self.route(0, Tree.leaf) { if case .leaf(let v) = $0 { v } else { nil } },
        Self.route(2, Tree.label) { if case .label(let v) = $0 { v } else { nil } },
      ])
    let node = CasePath<Tree, (Tree, Tree)>(Tree.node)
    let children = node.extract(.node(.leaf(1), .label("right")))
    #expect(children?.0 == .leaf(1))
    #expect(children?.1 == .label("right"))
  }

  @Test func genericEnums() {
    func check<Element: Equatable & Sendable>(_ element: Element, _ other: Element) {
      let samples: [Sample<Generic<Element>>] = [
        .init(value: .element(element), caseIndex: 0),
        .init(value: .element(other), caseIndex: 0),
        .init(value: .elements([element, other]), caseIndex: 1),
        .init(value: .nothing, caseIndex: 2),
        .init(value: .text("text"), caseIndex: 3),
      ]
      Self.checkAll(
        samples,
        [
          Self.route(0, Generic<Element>.element) {
            if case .element(let v) = $0 { v } else { nil }
          },
          Self.route(1, Generic<Element>.elements) {
            if case .elements(let v) = $0 { v } else { nil }
          },
          Self.route(3, Generic<Element>.text) { if case .text(let v) = $0 { v } else { nil } },
        ])
    }
    check(1, 2)
    check("a", "b")  // the element case and the text case have the same payload type
    check(Reference(1), Reference(2))
    check(Optional<Int>.none, 5)
    check(Inner.text("x"), .plain)
    check(Large(), Large(f: 0))
  }

  @Test func singlePayloadSingleCaseAndSmallEnums() {
    let reference = Reference(1)
    Self.checkAll(
      [
        .init(value: SinglePayload.reference(reference), caseIndex: 0),
        .init(value: .none, caseIndex: 1), .init(value: .other, caseIndex: 2),
      ],
      [Self.route(0, SinglePayload.reference) { if case .reference(let v) = $0 { v } else { nil } }]
    )
    Self.checkAll(
      [.init(value: OnlyCase.only("only"), caseIndex: 0)],
      [Self.route(0, OnlyCase.only) { if case .only(let v) = $0 { v } else { nil } }])
    Self.checkAll(
      [
        .init(value: Small.flag(true), caseIndex: 0), .init(value: .flag(false), caseIndex: 0),
        .init(value: .byte(0), caseIndex: 1), .init(value: .byte(255), caseIndex: 1),
        .init(value: .nothing, caseIndex: 2),
      ],
      [
        Self.route(0, Small.flag) { if case .flag(let v) = $0 { v } else { nil } },
        Self.route(1, Small.byte) { if case .byte(let v) = $0 { v } else { nil } },
      ])
    Self.checkAll(
      [.init(value: Optional<String>.some("x"), caseIndex: 0), .init(value: nil, caseIndex: 1)],
      [Self.route(0, Optional<String>.some) { $0 }])
  }

  @Test func nestedEnums() {
    let samples: [Sample<Nested>] = [
      .init(value: .mixed(.boxed("box")), caseIndex: 0),
      .init(value: .mixed(.first), caseIndex: 0),
      .init(value: .tree(.node(.leaf(1), .empty)), caseIndex: 1),
      .init(value: .generic(.element("e")), caseIndex: 2),
      .init(value: .plain, caseIndex: 3),
    ]
    Self.checkAll(
      samples,
      [
        Self.route(0, Nested.mixed) { if case .mixed(let v) = $0 { v } else { nil } },
        Self.route(1, Nested.tree) { if case .tree(let v) = $0 { v } else { nil } },
        Self.route(2, Nested.generic) { if case .generic(let v) = $0 { v } else { nil } },
      ])
    // Two levels: a path into the outer enum, then into the payload.
    let outer = CasePath(Nested.mixed)
    let inner = CasePath(Mixed.boxed)
    #expect(outer.extract(.mixed(.boxed("box"))).flatMap(inner.extract) == "box")
  }
}
