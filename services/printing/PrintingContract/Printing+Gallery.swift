import Contract
import Foundation

// MARK: - the standard gallery

extension Printing {
    /// A template image of the standard gallery: an image any signed-in user may put on a card,
    /// with the place it shows and its distance from the position the list was asked for.
    public struct GalleryItem: Codable, Sendable, Hashable {
        public var id: String
        /// The image id to use in a preview or an order.
        public var imageId: String
        public var title: String
        /// Keywords the search matches, as the admin gave them.
        public var tags: [String]
        /// The name of the place the image shows, when the admin gave one.
        public var place: String?
        public var lat: Double
        public var lon: Double
        /// Pixels, as displayed.
        public var width: Int
        public var height: Int
        /// Great-circle distance from the asked position, in metres (absent when adding, and in
        /// a list asked for without a position).
        public var distanceMeters: Double?
        public var createdAt: Date
        public init(
            id: String, imageId: String, title: String, tags: [String] = [], place: String? = nil, lat: Double,
            lon: Double, width: Int, height: Int, distanceMeters: Double?, createdAt: Date
        ) {
            self.id = id
            self.imageId = imageId
            self.title = title
            self.tags = tags
            self.place = place
            self.lat = lat
            self.lon = lon
            self.width = width
            self.height = height
            self.distanceMeters = distanceMeters
            self.createdAt = createdAt
        }
    }

    /// Adds an image to the gallery (role `admin`); the position falls back to the image's EXIF GPS.
    public enum AddGalleryImage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "add_gallery_image"

        public struct Request: Codable, Sendable, Hashable {
            public var contentType: String
            /// The image file in base64.
            public var data: String
            public var title: String?
            public var lat: Double?
            public var lon: Double?
            /// Keywords for the search (see ``Printing/GalleryLabels``).
            public var tags: [String]?
            /// The name of the place the image shows.
            public var place: String?
            public init(
                contentType: String, data: String, title: String?, lat: Double?, lon: Double?, tags: [String]? = nil,
                place: String? = nil
            ) {
                self.contentType = contentType
                self.data = data
                self.title = title
                self.lat = lat
                self.lon = lon
                self.tags = tags
                self.place = place
            }
        }

        public typealias Reply = GalleryItem
    }

    /// Gallery images a page at a time: nearest first (ties by id) from a position, newest first
    /// (ties by id) without one; `q` keeps those whose title, tags or place name hold every word.
    public enum ListGallery: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "list_gallery"
        /// Items per page when none is asked for, and the most per page.
        public static let defaultLimit = 20
        public static let maxLimit = 100
        /// The longest search text, in characters, and the most words it may hold.
        public static let maxQuery = 100
        public static let maxQueryWords = 8

        public struct Request: Codable, Sendable, Hashable {
            /// Both or neither.
            public var lat: Double?
            public var lon: Double?
            /// Keywords, matched anywhere in titles, tags and place names, ignoring case.
            public var q: String?
            /// `nextCursor` of the previous page.
            public var cursor: String?
            public var limit: Int?
            public init(lat: Double?, lon: Double?, q: String? = nil, cursor: String? = nil, limit: Int? = nil) {
                self.lat = lat
                self.lon = lon
                self.q = q
                self.cursor = cursor
                self.limit = limit
            }
        }

        public struct Reply: Codable, Sendable, Hashable {
            public var items: [GalleryItem]
            /// Absent on the last page.
            public var nextCursor: String?
            public init(items: [GalleryItem], nextCursor: String?) {
                self.items = items
                self.nextCursor = nextCursor
            }
        }
    }

    /// The limits of a gallery image's tags and place name.
    public enum GalleryLabels {
        /// The most tags an image has, and the longest tag, in characters.
        public static let maxTags = 10
        public static let maxTag = 40
        /// The longest place name, in characters.
        public static let maxPlace = 200
    }

    /// Takes an image out of the gallery (role `admin`); orders that already use it still render.
    public enum RemoveGalleryImage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "remove_gallery_image"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public init(id: String) { self.id = id }
        }

        public typealias Reply = Empty
    }
}

// MARK: - e-cards

extension Printing {
    /// The rendered e-card image of an order (JPEG, front and back side by side), by its
    /// unguessable token. The token is the capability: anyone holding it may fetch the image
    /// (the recipients' mail links to it), so no actor is needed.
    public enum ECardImage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "ecard_image"

        public struct Request: Codable, Sendable, Hashable {
            public var token: String
            public init(token: String) { self.token = token }
        }

        public struct Reply: Codable, Sendable, Hashable {
            public var mediaType: String
            /// The image bytes in base64.
            public var data: String
            public init(mediaType: String, data: String) {
                self.mediaType = mediaType
                self.data = data
            }
        }
    }
}
