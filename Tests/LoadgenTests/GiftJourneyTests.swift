import Foundation
import Testing

@testable import LoadgenKit

@Suite("loadgen: Gifter's gift journeys")
struct GiftJourneyTests {
    @Test(
        "every journey searches people and the catalogue, fills the friend's wish list, reads it and buys, in that order"
    )
    func everyJourney() {
        for pairs in [1, 2, 10] {
            for index in 0..<(8 * pairs) {
                let steps = GiftJourney(index: index, pairs: pairs).steps
                #expect(steps.first == .directorySearch(byEmail: (index / pairs) % 2 == 0), "\(index) of \(pairs)")
                #expect(steps.dropFirst().first == .catalogueSearch)
                #expect(Array(steps.suffix(3)) == [.favourite, .friendsWishList, .purchase], "\(steps)")
                #expect(steps.filter { $0 == .purchase }.count == 1)
            }
        }
    }

    @Test("each pair befriends the next pair's friend in round 1 and removes them in round 3, every 4 rounds")
    func friendRequests() {
        let pairs = 5
        var befriended: [Int: [Int]] = [:]
        var removed: [Int: [Int]] = [:]
        for index in 0..<(8 * pairs) {
            let journey = GiftJourney(index: index, pairs: pairs)
            #expect(journey.pair == index % pairs && journey.round == index / pairs)
            for step in journey.steps {
                switch step {
                case .befriend(let other):
                    #expect(other == (journey.pair + 1) % pairs)
                    befriended[journey.pair, default: []].append(journey.round)
                case .unfriend(let other):
                    #expect(other == (journey.pair + 1) % pairs)
                    removed[journey.pair, default: []].append(journey.round)
                default: break
                }
            }
        }
        for pair in 0..<pairs {
            #expect(befriended[pair] == [1, 5], "pair \(pair)")
            #expect(removed[pair] == [3, 7], "pair \(pair)")
        }
    }

    @Test("with one pair there is nobody else to befriend, so the set-up friendship stays alone")
    func onePair() {
        for index in 0..<16 {
            #expect(
                !GiftJourney(index: index, pairs: 1).steps.contains {
                    if case .befriend = $0 { return true }
                    if case .unfriend = $0 { return true }
                    return false
                })
        }
    }

    @Test("name searches use short prefixes, which the directory matches without an e-mail address")
    func namePrefixes() {
        for round in 0..<12 {
            let prefix = GiftJourney.namePrefix(round: round)
            #expect((2...4).contains(prefix.count) && !prefix.contains("@"), "\(prefix)")
        }
        #expect(Set((0..<6).map(GiftJourney.namePrefix(round:))).count == 6)
    }

    @Test("a gift order names item, quantity 1-3 and friend, never a price, and is the same on every try")
    func orderBody() throws {
        let friend = UUID().uuidString.lowercased()
        for index in 0..<9 {
            let body = GiftJourney.orderBody(index: index, item: "item-\(index)", card: "card-1", friendId: friend)
            #expect(
                body == GiftJourney.orderBody(index: index, item: "item-\(index)", card: "card-1", friendId: friend))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            #expect(object["kind"] as? String == "gift")
            #expect(object["paymentMethodId"] as? String == "card-1")
            let gift = try #require(object["gift"] as? [String: Any])
            #expect(Set(gift.keys) == ["itemId", "quantity", "friendUserId"], "\(gift)")
            #expect(gift["quantity"] as? Int == 1 + index % 3)
            #expect(gift["friendUserId"] as? String == friend)
        }
    }

    @Test("the purchase bench takes buyers and items in turn, each purchase with a key of its own")
    func benchOrders() {
        let pairs = (0..<3).map { AppScenarios.GiftPair(token: "t\($0)", card: "c\($0)", friendId: "f\($0)") }
        let state = AppScenarios.GiftState(pairs: pairs, items: ["a", "b"])
        var keys: Set<String> = []
        for index in 0..<12 {
            let (path, json, headers) = OrdersBench.giftOrder(index, state: state, run: "r")
            #expect(path == "/v1/orders")
            #expect(headers["Authorization"] == "Bearer t\(index % 3)")
            #expect(
                json.contains(#""friendUserId": "f\#(index % 3)""#)
                    && json.contains(#""paymentMethodId": "c\#(index % 3)""#))
            #expect(json.contains(#""itemId": "\#(["a", "b"][(index / 3) % 2])""#))
            keys.insert(headers["Idempotency-Key"] ?? "")
        }
        #expect(keys.count == 12)
    }

    @Test("options: gifter and mixed send gift journeys, navup none")
    func options() throws {
        #expect(try Loadgen.appSettings("gifter", [:]).giftRate > 0)
        #expect(try Loadgen.appSettings("mixed", [:]).giftRate > 0)
        #expect(try Loadgen.appSettings("navup", [:]).giftRate == 0)
    }
}
