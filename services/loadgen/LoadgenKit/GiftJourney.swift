/// What one of `gifter`'s gift journeys does, decided from its arrival number alone, so the mix
/// can be checked without a system (`GiftJourneyTests`).
///
/// Journey `index` belongs to pair `index % pairs` (a buyer and the friend made at set-up) and is
/// that pair's round `index / pairs`. Every journey looks someone up in the directory (by the
/// friend's whole e-mail address in even rounds, by a short name prefix in odd ones, the
/// directory's expensive case), searches the catalogue, has the friend put the item on their wish
/// list, reads that wish list as the buyer and buys the item for the friend. With two pairs or
/// more, a pair's round 1 (of every 4) also sends a friend request to the next pair's friend,
/// which that friend accepts, and round 3 removes that friendship again; the friendship made at
/// set-up is never touched, so every gift goes to a friend.
struct GiftJourney: Equatable, Sendable {
    enum Step: Equatable, Sendable {
        /// `GET /v1/users?q=`: the friend's whole e-mail address, or a short name prefix.
        case directorySearch(byEmail: Bool)
        case catalogueSearch
        /// The buyer asks the friend of pair `ofPair`; that friend accepts when it is a request.
        case befriend(ofPair: Int)
        /// The buyer removes the friend of pair `ofPair` again.
        case unfriend(ofPair: Int)
        /// The friend puts the item on their wish list.
        case favourite
        /// The buyer reads the friend's wish list.
        case friendsWishList
        case purchase
    }

    let pair: Int
    let round: Int
    let steps: [Step]

    init(index: Int, pairs: Int) {
        precondition(index >= 0 && pairs > 0)
        pair = index % pairs
        round = index / pairs
        var steps: [Step] = [.directorySearch(byEmail: round % 2 == 0), .catalogueSearch]
        if pairs > 1 {
            let other = (pair + 1) % pairs
            if round % 4 == 1 { steps.append(.befriend(ofPair: other)) }
            if round % 4 == 3 { steps.append(.unfriend(ofPair: other)) }
        }
        steps += [.favourite, .friendsWishList, .purchase]
        self.steps = steps
    }

    /// Short prefixes of names, the directory's costly queries (many people start with them).
    static let namePrefixes = ["an", "li", "erik", "ma", "lind", "sa"]

    /// The name prefix journey `round` types.
    static func namePrefix(round: Int) -> String { namePrefixes[round % namePrefixes.count] }

    /// The order's body: the item, a quantity of 1 to 3 and the friend, never a price (social
    /// prices it); the same for every try of one journey, which sends the same key each time.
    static func orderBody(index: Int, item: String, card: String, friendId: String) -> String {
        """
        {"kind": "gift", "currency": "EUR", "paymentMethodId": "\(card)",
         "gift": {"itemId": "\(item)", "quantity": \(1 + index % 3), "friendUserId": "\(friendId)"}}
        """
    }
}
