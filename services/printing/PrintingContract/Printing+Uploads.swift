import Contract
import Foundation

// MARK: - image content (thumbnails and screen sizes)

extension Printing {
    /// An image scaled to a width for a phone's screen: `image_content`. Uploads are their
    /// owner's (printers and admins see any), gallery images anyone's; other ids are 404.
    public enum ImageContent: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "image_content"
        /// The widths served (thumbnail, list, full screen); any other is a 400.
        public static let widths = [128, 320, 1080]

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            /// One of ``widths``.
            public var width: Int
            /// The request's `If-None-Match`: when it names the current tag, no bytes come back.
            public var ifNoneMatch: String?
            public init(id: String, width: Int, ifNoneMatch: String? = nil) {
                self.id = id
                self.width = width
                self.ifNoneMatch = ifNoneMatch
            }
        }

        public struct Reply: Codable, Sendable, Hashable {
            /// The strong entity tag, quoted (`"<sha256 of the original>-w128-v1"`).
            public var etag: String
            /// The client's copy is current: no data.
            public var notModified: Bool
            /// `image/jpeg`.
            public var mediaType: String
            /// Pixels of the scaled image (EXIF orientation applied; never wider than the original).
            public var width: Int
            public var height: Int
            /// The JPEG in base64; empty when ``notModified``.
            public var data: String
            public init(etag: String, notModified: Bool, mediaType: String, width: Int, height: Int, data: String) {
                self.etag = etag
                self.notModified = notModified
                self.mediaType = mediaType
                self.width = width
                self.height = height
                self.data = data
            }
        }
    }
}

// MARK: - resumable uploads (tus 1.0.0 core + creation)

extension Printing {
    /// The state of a resumable upload.
    public struct UploadState: Codable, Sendable, Hashable {
        public var id: String
        /// Bytes received and stored so far.
        public var offset: Int64
        /// Bytes the upload will have.
        public var length: Int64
        /// When an unfinished upload is swept.
        public var expiresAt: Date
        /// The image the finished upload became.
        public var image: ImageInfo?
        public init(id: String, offset: Int64, length: Int64, expiresAt: Date, image: ImageInfo?) {
            self.id = id
            self.offset = offset
            self.length = length
            self.expiresAt = expiresAt
            self.image = image
        }
    }

    /// Starts a resumable upload of `length` bytes (tus creation): `create_upload`.
    public enum CreateUpload: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "create_upload"

        public struct Request: Codable, Sendable, Hashable {
            public var length: Int64
            /// `image/jpeg`, `image/png` or `image/bmp` when the client names it (tus `Upload-Metadata`
            /// `filetype`); otherwise told from the first bytes.
            public var contentType: String?
            public init(length: Int64, contentType: String? = nil) {
                self.length = length
                self.contentType = contentType
            }
        }

        public typealias Reply = UploadState
    }

    /// Where a resumable upload stands (tus `HEAD`): `upload_status`.
    public enum UploadStatus: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "upload_status"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public init(id: String) { self.id = id }
        }

        public typealias Reply = UploadState
    }

    /// Appends bytes at `offset` (tus `PATCH`): `append_upload`. An offset other than the stored
    /// one is a `conflict`; the last bytes turn the upload into an image (same guards as
    /// `upload_image`).
    public enum AppendUpload: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "append_upload"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public var offset: Int64
            /// The bytes in base64.
            public var data: String
            public init(id: String, offset: Int64, data: String) {
                self.id = id
                self.offset = offset
                self.data = data
            }
        }

        public typealias Reply = UploadState
    }
}
