// Over 300 lines on purpose: one case per enum layout the runtime can produce (payload kinds,
// spare bits, indirect, generic, resilient), each needing its own types.

import Foundation
import Testing

@testable import Unidirectional

/// Review of `CasePath(embed)`: enum layouts and payload types beyond `CasePathTests`, each
/// checked against a hand-written pattern match.
@Suite struct CasePathReviewTests {
  final class Ref: Equatable, Hashable, Sendable {
    let number: Int
    init(_ number: Int) { self.number = number }
    static func == (lhs: Ref, rhs: Ref) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
  }

  final class GenericRef<T: Sendable>: Sendable {
    let value: T
    init(_ value: T) { self.value = value }
  }

  // MARK: Standard library enums as Root

  struct Failure: Error, Equatable {}

  @Test func resultWithAnExistentialError() {
    let success = CasePath<Result<Int, any Error>, Int>(Result.success)
    let failure = CasePath<Result<Int, any Error>, any Error>(Result.failure)
    #expect(success.extract(.success(7)) == 7)
    #expect(success.extract(.failure(Failure())) == nil)
    #expect(failure.extract(.failure(Failure())) as? Failure == Failure())
    #expect(failure.extract(.success(7)) == nil)
    let typed = CasePath<Result<String, Failure>, Failure>(Result.failure)
    #expect(typed.extract(.failure(Failure())) == Failure())
    #expect(typed.extract(.success("x")) == nil)
    let string = CasePath<Result<String, Failure>, String>(Result.success)
    #expect(
      string.extract(.success("long enough to be on the heap, surely"))
        == "long enough to be on the heap, surely")
  }

  @Test func nestedOptionals() {
    let outer = CasePath<Int??, Int?>(Optional.some)
    #expect(outer.extract(.some(.some(3))) == .some(.some(3)))
    #expect(outer.extract(.some(.none)) == .some(.none))
    #expect(outer.extract(.none) == nil)
    let triple = CasePath<String???, String??>(Optional.some)
    #expect(triple.extract(.some(.some(.some("a")))) == .some(.some(.some("a"))))
    #expect(triple.extract(.some(.some(.none))) == .some(.some(.none)))
    #expect(triple.extract(.some(.none)) == .some(.none))
    #expect(triple.extract(.none) == nil)
    let reference = CasePath<Ref?, Ref>(Optional.some)
    let ref = Ref(1)
    #expect(reference.extract(ref) === ref)
    #expect(reference.extract(nil) == nil)
  }

  // MARK: Tags beyond one byte

  enum ManyCases: Equatable, Sendable {
    case tiny(Int8)
    case flag(Bool)
    case text(String)
    case e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19,
      e20, e21, e22, e23, e24, e25, e26, e27, e28, e29, e30, e31, e32, e33, e34, e35, e36, e37, e38,
      e39, e40, e41, e42, e43, e44, e45, e46, e47, e48, e49, e50, e51, e52, e53, e54, e55, e56, e57,
      e58, e59, e60, e61, e62, e63, e64, e65, e66, e67, e68, e69, e70, e71, e72, e73, e74, e75, e76,
      e77, e78, e79, e80, e81, e82, e83, e84, e85, e86, e87, e88, e89, e90, e91, e92, e93, e94, e95,
      e96, e97, e98, e99, e100, e101, e102, e103, e104, e105, e106, e107, e108, e109, e110, e111,
      e112, e113, e114, e115, e116, e117, e118, e119, e120, e121, e122, e123, e124, e125, e126,
      e127, e128, e129, e130, e131, e132, e133, e134, e135, e136, e137, e138, e139, e140, e141,
      e142, e143, e144, e145, e146, e147, e148, e149, e150, e151, e152, e153, e154, e155, e156,
      e157, e158, e159, e160, e161, e162, e163, e164, e165, e166, e167, e168, e169, e170, e171,
      e172, e173, e174, e175, e176, e177, e178, e179, e180, e181, e182, e183, e184, e185, e186,
      e187, e188, e189, e190, e191, e192, e193, e194, e195, e196, e197, e198, e199, e200, e201,
      e202, e203, e204, e205, e206, e207, e208, e209, e210, e211, e212, e213, e214, e215, e216,
      e217, e218, e219, e220, e221, e222, e223, e224, e225, e226, e227, e228, e229, e230, e231,
      e232, e233, e234, e235, e236, e237, e238, e239, e240, e241, e242, e243, e244, e245, e246,
      e247, e248, e249, e250, e251, e252, e253, e254, e255, e256, e257, e258, e259, e260, e261,
      e262, e263, e264, e265, e266, e267, e268, e269, e270, e271, e272, e273, e274, e275, e276,
      e277, e278, e279, e280, e281, e282, e283, e284, e285, e286, e287, e288, e289, e290, e291,
      e292, e293, e294, e295, e296, e297, e298, e299
    case last(UInt8)
  }

  @Test func moreThan256Cases() {
    let tiny = CasePath(ManyCases.tiny)
    let flag = CasePath(ManyCases.flag)
    let text = CasePath(ManyCases.text)
    let last = CasePath(ManyCases.last)
    let values: [ManyCases] = [
      .tiny(-1), .tiny(0), .flag(true), .flag(false), .text("t"), .e0, .e255, .e256, .e299,
      .last(255), .last(0),
    ]
    for value in values {
      #expect(tiny.extract(value) == { if case .tiny(let v) = value { v } else { nil } }())
      #expect(flag.extract(value) == { if case .flag(let v) = value { v } else { nil } }())
      #expect(text.extract(value) == { if case .text(let v) = value { v } else { nil } }())
      #expect(last.extract(value) == { if case .last(let v) = value { v } else { nil } }())
    }
  }

  /// Seventy cases with an `Int` payload: tags past 64, which a case path's one-word test of
  /// tags does not cover, are matched through the payload's type.
  enum ManyIntPayloads: Equatable, Sendable {
    case c0(Int), c1(Int), c2(Int), c3(Int), c4(Int), c5(Int), c6(Int), c7(Int), c8(Int), c9(Int),
      c10(Int), c11(Int), c12(Int), c13(Int), c14(Int), c15(Int), c16(Int), c17(Int), c18(Int),
      c19(Int), c20(Int), c21(Int), c22(Int), c23(Int), c24(Int), c25(Int), c26(Int), c27(Int),
      c28(Int), c29(Int), c30(Int), c31(Int), c32(Int), c33(Int), c34(Int), c35(Int), c36(Int),
      c37(Int), c38(Int), c39(Int), c40(Int), c41(Int), c42(Int), c43(Int), c44(Int), c45(Int),
      c46(Int), c47(Int), c48(Int), c49(Int), c50(Int), c51(Int), c52(Int), c53(Int), c54(Int),
      c55(Int), c56(Int), c57(Int), c58(Int), c59(Int), c60(Int), c61(Int), c62(Int), c63(Int),
      c64(Int), c65(Int), c66(Int), c67(Int), c68(Int), c69(Int)
    case none
  }

  @Test func payloadCasesPastTag64() {
    let paths = [
      (0, CasePath(ManyIntPayloads.c0)), (63, CasePath(ManyIntPayloads.c63)),
      (64, CasePath(ManyIntPayloads.c64)), (69, CasePath(ManyIntPayloads.c69)),
    ]
    let values: [(Int?, ManyIntPayloads)] = [
      (0, .c0(7)), (1, .c1(7)), (63, .c63(7)), (64, .c64(7)), (65, .c65(7)), (69, .c69(7)),
      (nil, .none),
    ]
    for (pathCase, path) in paths {
      for (valueCase, value) in values {
        #expect(
          path.extract(value) == (pathCase == valueCase ? 7 : nil), "c\(pathCase) on \(value)")
      }
    }
  }

  enum ManyPayloads: Equatable, Sendable {
    case p0(Int8), p1(Int8), p2(Int8), p3(Bool), p4(Bool), p5(UInt16), p6(Int8?), p7(Bool?)
    case q0, q1, q2
  }

  @Test func manyPayloadCasesOfSmallTypes() {
    let paths = [
      CasePath(ManyPayloads.p0), CasePath(ManyPayloads.p1), CasePath(ManyPayloads.p2),
    ]
    let values: [ManyPayloads] = [
      .p0(1), .p1(-128), .p2(127), .p3(true), .p5(9), .p6(nil), .p7(nil), .q2,
    ]
    for (index, path) in paths.enumerated() {
      for value in values {
        let expected: Int8? =
          switch (index, value) {
          case (0, .p0(let v)), (1, .p1(let v)), (2, .p2(let v)): v
          default: nil
          }
        #expect(path.extract(value) == expected, "\(index) \(value)")
      }
    }
    #expect(CasePath(ManyPayloads.p3).extract(.p4(true)) == nil)
    #expect(CasePath(ManyPayloads.p4).extract(.p4(false)) == false)
    #expect(CasePath(ManyPayloads.p5).extract(.p5(65535)) == 65535)
    #expect(CasePath(ManyPayloads.p6).extract(.p6(nil)) == .some(nil))
    #expect(CasePath(ManyPayloads.p6).extract(.p6(-3)) == .some(-3))
    #expect(CasePath(ManyPayloads.p7).extract(.p7(false)) == .some(false))
    #expect(CasePath(ManyPayloads.p7).extract(.p6(nil)) == nil)
  }

  // MARK: Payload types

  enum Payloads {
    case object(any AnyObject & Sendable)
    case hashable(AnyHashable)
    case optionalText(String?)
    case dictionary([Int: String])
    case set(Set<Int>)
    case big(Int, Int, Int, Int, String, Double)
    case vector(SIMD4<Float>)
    case vector2(SIMD4<Float>)
    indirect case boxedVector(SIMD4<Float>)
    case byte(Int8)
    case flag(Bool)
    case size(width: Int, height: Int)
    case point(x: Int, y: Int)
    case void(Void)
    case nothing
  }

  @Test func payloadsOfManyTypes() {
    let ref = Ref(4)
    let object = CasePath<Payloads, any AnyObject & Sendable>(Payloads.object)
    #expect(object.extract(.object(ref)) === ref)
    #expect(object.extract(.nothing) == nil)
    let hashable = CasePath(Payloads.hashable)
    #expect(hashable.extract(.hashable(AnyHashable("h"))) == AnyHashable("h"))
    #expect(hashable.extract(.hashable(AnyHashable(ref))) == AnyHashable(ref))
    #expect(hashable.extract(.optionalText("h")) == nil)
    let optionalText = CasePath(Payloads.optionalText)
    #expect(optionalText.extract(.optionalText(nil)) == .some(nil))
    #expect(optionalText.extract(.optionalText("o")) == .some("o"))
    #expect(optionalText.extract(.hashable(AnyHashable("o"))) == nil)
    #expect(CasePath(Payloads.dictionary).extract(.dictionary([1: "a"])) == [1: "a"])
    #expect(CasePath(Payloads.set).extract(.set([1, 2])) == [1, 2])
    #expect(CasePath(Payloads.set).extract(.dictionary([:])) == nil)
    let big = CasePath<Payloads, (Int, Int, Int, Int, String, Double)>(Payloads.big)
    let extracted = big.extract(.big(1, 2, 3, 4, "five", 6.5))
    #expect(extracted?.0 == 1 && extracted?.3 == 4 && extracted?.4 == "five" && extracted?.5 == 6.5)
    #expect(big.extract(.nothing) == nil)
    let vector = CasePath(Payloads.vector)
    #expect(vector.extract(.vector([1, 2, 3, 4])) == [1, 2, 3, 4])
    #expect(vector.extract(.vector2([1, 2, 3, 4])) == nil)
    #expect(CasePath(Payloads.vector2).extract(.vector2([5, 6, 7, 8])) == [5, 6, 7, 8])
    let boxed = CasePath(Payloads.boxedVector)
    #expect(boxed.extract(.boxedVector([9, 10, 11, 12])) == [9, 10, 11, 12])
    #expect(boxed.extract(.vector([9, 10, 11, 12])) == nil)
    #expect(CasePath(Payloads.byte).extract(.byte(-7)) == -7)
    #expect(CasePath(Payloads.byte).extract(.flag(true)) == nil)
    #expect(CasePath(Payloads.flag).extract(.flag(true)) == true)
    // Two cases with the same payload types, labelled differently.
    let size = CasePath<Payloads, (width: Int, height: Int)>(Payloads.size)
    let point = CasePath<Payloads, (x: Int, y: Int)>(Payloads.point)
    #expect(size.extract(.size(width: 1, height: 2)).map { [$0.width, $0.height] } == [1, 2])
    #expect(size.extract(.point(x: 1, y: 2)) == nil)
    #expect(point.extract(.point(x: 3, y: 4)).map { [$0.x, $0.y] } == [3, 4])
    #expect(point.extract(.size(width: 3, height: 4)) == nil)
    let void = CasePath<Payloads, Void>(Payloads.void)
    #expect(void.extract(.void(())) != nil)
    #expect(void.extract(.nothing) == nil)
  }

  // MARK: Generic and nested declarations

  enum WithGenericClass<T: Sendable>: Sendable {
    case object(GenericRef<T>)
    case other(GenericRef<Int>)
    case value(T)
    indirect case boxed(T)
    case none
  }

  @Test func genericClassPayloadsAndIndirectGenericCases() {
    let ref = GenericRef("s")
    let object = CasePath(WithGenericClass<String>.object)
    #expect(object.extract(.object(ref)) === ref)
    #expect(object.extract(.other(GenericRef(1))) == nil)
    let boxed = CasePath(WithGenericClass<String>.boxed)
    let value = CasePath(WithGenericClass<String>.value)
    #expect(boxed.extract(.boxed("in a box")) == "in a box")
    #expect(boxed.extract(.value("inline")) == nil)
    #expect(value.extract(.value("inline")) == "inline")
    #expect(value.extract(.boxed("in a box")) == nil)
    let boxedVector = CasePath(WithGenericClass<SIMD4<Double>>.boxed)
    #expect(boxedVector.extract(.boxed([1, 2, 3, 4])) == [1, 2, 3, 4])
    let boxedByte = CasePath(WithGenericClass<Int8>.boxed)
    #expect(boxedByte.extract(.boxed(-2)) == -2)
    #expect(boxedByte.extract(.value(-2)) == nil)
    let boxedVoid = CasePath(WithGenericClass<Void>.boxed)
    #expect(boxedVoid.extract(.boxed(())) != nil)
    #expect(boxedVoid.extract(.value(())) == nil)
    let valueVoid = CasePath(WithGenericClass<Void>.value)
    #expect(valueVoid.extract(.value(())) != nil)
    #expect(valueVoid.extract(.none) == nil)
  }

  enum OfElements<C: Collection & Sendable>: Sendable
  where C.Element: Sendable & Equatable, C.Index: Sendable {
    case element(C.Element)
    case index(C.Index)
    case collection(C)
  }

  @Test func protocolConstrainedGenericPayloads() {
    let element = CasePath(OfElements<[String]>.element)
    #expect(element.extract(.element("e")) == "e")
    #expect(element.extract(.collection(["e"])) == nil)
    let index = CasePath(OfElements<[String]>.index)
    #expect(index.extract(.index(3)) == 3)
    #expect(index.extract(.element("3")) == nil)
    let character = CasePath(OfElements<String>.element)
    #expect(character.extract(.element("c")) == "c")
  }

  struct Outer<T: Sendable> {
    enum Inner: Sendable {
      case value(T)
      case pair(T, T)
      case text(String)
    }
  }

  @Test func enumsNestedInGenericTypes() {
    let constrained = CasePath(Outer<Int>.Equal.value)
    #expect(constrained.extract(.value(5)) == 5)
    #expect(constrained.extract(.text("5")) == nil)
    let equatable = CasePath(Outer<String>.OfEquatable.pair)
    #expect(equatable.extract(.pair("a", 1)).map { "\($0.0)\($0.1)" } == "a1")
    #expect(equatable.extract(.value("a")) == nil)
    let value = CasePath(Outer<Int>.Inner.value)
    #expect(value.extract(.value(1)) == 1)
    #expect(value.extract(.text("1")) == nil)
    let pair = CasePath<Outer<String>.Inner, (String, String)>(Outer<String>.Inner.pair)
    #expect(pair.extract(.pair("a", "b")).map { [$0.0, $0.1] } == ["a", "b"])
    #expect(pair.extract(.value("a")) == nil)
    let text = CasePath(Outer<String>.Inner.text)
    #expect(text.extract(.value("a")) == nil)
    #expect(text.extract(.text("a")) == "a")
  }

  struct Empty: Equatable, Sendable {}

  /// A concrete empty payload before generic ones: laid out as a case without payload, while a
  /// generic payload that turns out empty still has one.
  enum EmptyFirst<T: Sendable & Equatable>: Equatable, Sendable {
    case empty(Empty)
    case value(T)
    case text(String)
    case none
  }

  @Test func emptyPayloadsInGenericEnums() {
    let empty = CasePath(EmptyFirst<Int>.empty)
    let value = CasePath(EmptyFirst<Int>.value)
    let values: [EmptyFirst<Int>] = [.empty(Empty()), .value(1), .text("t"), .none]
    #expect(values.map { empty.extract($0) != nil } == [true, false, false, false])
    #expect(values.map { value.extract($0) } == [nil, 1, nil, nil])
    let emptyValue = CasePath(EmptyFirst<Empty>.value)
    let emptyEmpty = CasePath(EmptyFirst<Empty>.empty)
    let emptyValues: [EmptyFirst<Empty>] = [.empty(Empty()), .value(Empty()), .text("t"), .none]
    #expect(emptyValues.map { emptyValue.extract($0) != nil } == [false, true, false, false])
    #expect(emptyValues.map { emptyEmpty.extract($0) != nil } == [true, false, false, false])
  }

  fileprivate enum FilePrivate: Sendable {
    case a(Int)
    case b(Int)
  }

  @Test func localAndPrivateEnums() {
    enum Local: Sendable {
      case number(Int)
      case text(String)
      case nothing
    }
    let number = CasePath(Local.number)
    #expect(number.extract(.number(2)) == 2)
    #expect(number.extract(.nothing) == nil)
    #expect(CasePath(Local.text).extract(.text("t")) == "t")
    #expect(CasePath(FilePrivate.b).extract(.b(1)) == 1)
    #expect(CasePath(FilePrivate.b).extract(.a(1)) == nil)
  }

  // MARK: Types that must not match

  protocol Shape: Sendable {}
  struct Square: Shape, Equatable {}

  enum Shapes: Sendable {
    case square(Square)
    case any(any Shape)
  }

  @Test func anExistentialValueDoesNotMatchAConcretePayload() {
    let any = CasePath<Shapes, any Shape>(Shapes.any)
    #expect(any.extract(.square(Square())) == nil)
    #expect(any.extract(.any(Square())) is Square)
    // Only the existential case has an `any Shape` payload.
    #expect(EnumLayout.of(Shapes.self, withPayload: (any Shape).self)?.cases.count == 2)
    let square = CasePath(Shapes.square)
    #expect(square.extract(.any(Square())) == nil)
  }

  // MARK: Concurrency

  enum Concurrent1: Sendable { case a(Int), b(String), c }
  enum Concurrent2: Sendable { case a(Int), b(String), c }
  enum Concurrent3: Sendable { case a(Int), b(String), c }
  enum Concurrent4: Sendable { case a(Int), b(String), c }

  @Test func concurrentFirstUse() {
    DispatchQueue.concurrentPerform(iterations: 64) { iteration in
      switch iteration % 4 {
      case 0:
        #expect(CasePath(Concurrent1.b).extract(.b("x")) == "x")
        #expect(CasePath(Concurrent1.a).extract(.b("x")) == nil)
      case 1:
        #expect(CasePath(Concurrent2.b).extract(.b("x")) == "x")
        #expect(CasePath(Concurrent2.a).extract(.a(2)) == 2)
      case 2:
        #expect(CasePath(Concurrent3.a).extract(.a(3)) == 3)
      default:
        #expect(CasePath(Concurrent4.b).extract(.c) == nil)
      }
    }
  }

  // MARK: More standard library enums

  struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  @Test func resilientStandardLibraryEnumsAndVoidPayloads() {
    let context = DecodingError.Context(codingPath: [Key(stringValue: "a")], debugDescription: "d")
    let keyNotFound = CasePath<DecodingError, (any CodingKey, DecodingError.Context)>(
      DecodingError.keyNotFound)
    #expect(keyNotFound.extract(.keyNotFound(Key(stringValue: "k"), context))?.0.stringValue == "k")
    #expect(keyNotFound.extract(.dataCorrupted(context)) == nil)
    #expect(keyNotFound.extract(.typeMismatch(Int.self, context)) == nil)
    let corrupted = CasePath<DecodingError, DecodingError.Context>(DecodingError.dataCorrupted)
    #expect(corrupted.extract(.dataCorrupted(context))?.debugDescription == "d")
    #expect(corrupted.extract(.keyNotFound(Key(stringValue: "k"), context)) == nil)
    let success = CasePath<Result<Void, Failure>, Void>(Result.success)
    #expect(success.extract(.success(())) != nil)
    #expect(success.extract(.failure(Failure())) == nil)
  }

  enum WithUnavailable {
    case a(Int)
    @available(*, unavailable) case b(Int)
    case c
  }

  indirect enum Tree: Equatable {
    case node(Tree)
    case leaf(Int)
  }

  @Test func unavailableCasesAndRecursivePayloads() {
    #expect(CasePath(WithUnavailable.a).extract(.a(1)) == 1)
    #expect(CasePath(WithUnavailable.a).extract(.c) == nil)
    let node = CasePath(Tree.node)
    #expect(node.extract(.node(.node(.leaf(1)))) == .node(.leaf(1)))
    #expect(node.extract(.leaf(1)) == nil)
  }

  // MARK: Payloads whose storage in a case differs from a generic value's

  /// `Optional` stores its payload at the payload's own abstraction, as a tuple does: a closure
  /// in `case function(((Int) -> Int)?)` takes its argument directly, while the same closure
  /// in a generic `Value` takes it indirectly; `Int.Type` in `case type(Int.Type?)` is stored
  /// as nothing, while a generic `Int.Type?` is a pointer.
  enum OptionalFunction: Sendable {
    case function((@Sendable (Int) -> Int)?)
    case nested((@Sendable (Int) -> Int)??)
    case tuple((Int, @Sendable (Int) -> Int)?)
    case number(Int)
  }

  enum OptionalMetatype: Sendable {
    case type(Int.Type?)
    case number(Int)
  }

  @Test func optionalFunctionsAndMetatypesAreNotRouted() {
    typealias Function = @Sendable (Int) -> Int
    #expect(EnumLayout.of(OptionalFunction.self, withPayload: Function?.self) == nil)
    #expect(EnumLayout.of(OptionalFunction.self, withPayload: Function??.self) == nil)
    #expect(EnumLayout.of(OptionalFunction.self, withPayload: (Int, Function)?.self) == nil)
    #expect(EnumLayout.of(OptionalMetatype.self, withPayload: Int.Type?.self) == nil)
    // The other cases still route.
    let number = CasePath(OptionalFunction.number)
    #expect(number.extract(.number(2)) == 2)
    #expect(number.extract(.function(nil)) == nil)
    #expect(CasePath(OptionalMetatype.number).extract(.type(Int.self)) == nil)
  }

  @Test func aCasePathToAnOptionalFunctionStops() async {
    // Used to read the closure stored for direct arguments as one taking them indirectly:
    // calling the extracted `{ $0 + 1 }` with 41 gave 0.
    await #expect(processExitsWith: .failure) {
      let path = CasePath<OptionalFunction, (@Sendable (Int) -> Int)?>(OptionalFunction.function)
      _ = path.extract(.function({ $0 + 1 }))
    }
    // Used to read one byte of storage as a pointer: `.type(Int.self)` gave `.some(nil)`.
    await #expect(processExitsWith: .failure) {
      let path = CasePath<OptionalMetatype, Int.Type?>(OptionalMetatype.type)
      _ = path.extract(.type(Int.self))
    }
  }
}

extension CasePathReviewTests.Outer where T == Int {
  enum Equal: Sendable {
    case text(String)
    case value(T)
  }
}

extension CasePathReviewTests.Outer where T: Equatable {
  enum OfEquatable: Sendable {
    case value(T)
    case pair(T, Int)
  }
}
