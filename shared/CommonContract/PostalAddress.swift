/// A postal address; `country` is ISO 3166-1 alpha-2. Orders ships gifts and posts cards to it,
/// printing prints it on a card, social keeps it in profiles and address books.
public struct PostalAddress: Codable, Sendable, Hashable {
    public var line1: String
    public var line2: String?
    public var city: String
    public var postalCode: String?
    public var region: String?
    public var country: String
    public init(
        line1: String, line2: String? = nil, city: String, postalCode: String? = nil, region: String? = nil,
        country: String
    ) {
        self.line1 = line1
        self.line2 = line2
        self.city = city
        self.postalCode = postalCode
        self.region = region
        self.country = country
    }
}

/// Someone a postcard goes to.
public struct PostalRecipient: Codable, Sendable, Hashable {
    public var name: String
    public var address: PostalAddress
    public init(name: String, address: PostalAddress) {
        self.name = name
        self.address = address
    }
}
