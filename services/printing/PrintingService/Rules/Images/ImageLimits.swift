/// How big an upload may be, in bytes and in pixels (`IMAGE_MAX_BYTES`, `IMAGE_MAX_MEGAPIXELS`).
public struct ImageLimits: Sendable, Hashable {
    public var maxBytes: Int
    public var maxPixels: Int

    /// Creates limits.
    public init(maxBytes: Int, maxPixels: Int) {
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
    }

    /// 25 MB and 50 megapixels.
    public static let standard = ImageLimits(maxBytes: 25_000_000, maxPixels: 50_000_000)
}
