/// The public page of a shared card: HTML with the Open Graph and Twitter Card tags that link
/// previews read (Facebook and Instagram read `og:*`, X reads `twitter:*` and falls back to
/// `og:*`), and the card's image. It carries only what the owner chose to share (a title, the
/// greeting as description, the image); never a recipient, an address or the order's id.
public struct SharePage: Sendable, Hashable {
    /// The page's own absolute link (`og:url`, the canonical link).
    public var pageURL: String
    /// The image's absolute link (`og:image`, `twitter:image`).
    public var imageURL: String
    public var title: String
    public var description: String
    public var imageWidth: Int
    public var imageHeight: Int
    /// `og:site_name`.
    public static let siteName = "PostcardBuddy"
    /// The longest description put in the tags (link previews cut near 200 characters).
    public static let maxDescription = 200

    /// Creates the page.
    public init(
        pageURL: String, imageURL: String, title: String, description: String, imageWidth: Int, imageHeight: Int
    ) {
        self.pageURL = pageURL
        self.imageURL = imageURL
        self.title = title
        self.description = description
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
    }

    /// The description a card's greeting makes: its text on one line, cut to
    /// ``maxDescription`` characters; a default when there is none.
    public static func description(greeting: String?) -> String {
        let words = (greeting ?? "").split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        guard !words.isEmpty else { return "A card sent with \(siteName)." }
        return words.count > maxDescription ? String(words.prefix(maxDescription - 1)) + "…" : words
    }

    /// The HTML document (UTF-8, every value escaped).
    public var html: String {
        let title = Self.escape(title)
        let description = Self.escape(description)
        let page = Self.escape(pageURL)
        let image = Self.escape(imageURL)
        let meta: [(attribute: String, name: String, content: String)] = [
            ("property", "og:type", "website"),
            ("property", "og:site_name", Self.siteName),
            ("property", "og:title", title),
            ("property", "og:description", description),
            ("property", "og:url", page),
            ("property", "og:image", image),
            ("property", "og:image:type", "image/jpeg"),
            ("property", "og:image:width", "\(imageWidth)"),
            ("property", "og:image:height", "\(imageHeight)"),
            ("property", "og:image:alt", title),
            ("name", "twitter:card", "summary_large_image"),
            ("name", "twitter:title", title),
            ("name", "twitter:description", description),
            ("name", "twitter:image", image),
            ("name", "twitter:image:alt", title),
            ("name", "description", description),
            ("name", "robots", "noindex"),
        ]
        let tags = meta.map { "<meta \($0.attribute)=\"\($0.name)\" content=\"\($0.content)\" />" }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8" />
            <meta name="viewport" content="width=device-width, initial-scale=1" />
            <title>\(title)</title>
            \(tags.joined(separator: "\n"))
            <link rel="canonical" href="\(page)" />
            <style>body{margin:0;background:#f4efe6;font-family:sans-serif;color:#222;text-align:center}\
            main{max-width:960px;margin:0 auto;padding:24px}img{max-width:100%;height:auto;\
            box-shadow:0 4px 16px rgba(0,0,0,.25);background:#fff}</style>
            </head>
            <body>
            <main>
            <h1>\(title)</h1>
            <img src="\(image)" alt="\(title)" width="\(imageWidth)" height="\(imageHeight)" />
            <p>\(description)</p>
            </main>
            </body>
            </html>

            """
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
