import CommonContract
import Contract
import Foundation
import PrintingContract
import PrintingService
import ServiceKit

// printing-bench: A6 print PDF and preview latency for an 8-megapixel JPEG with three edits, the
// peak resident memory of 50 consecutive edits (in a fresh child process), and the same
// operations by the `vips` command-line tool on the same file, as ratios. See docs/printing.md.

let arguments = CommandLine.arguments
if arguments.contains("--help") {
    print(
        """
        printing-bench [--runs N] [--dir DIR]
          A6 print PDF render and A6 preview (PNG, 100 dpi) p50/p95 over N runs (default 30) for a
          generated 3264x2448 JPEG with brightness +0.1, crop 80 % centred, sepia; peak RSS (VmHWM)
          of 50 consecutive edits in a child process; the same work by `vips` (libvips-tools) when
          it is on the PATH; thumbnails and screen sizes (w=128, 320, 1080) made from the photo and
          read again from the kept file. Files go to DIR (default .data/printing-bench).
        printing-bench --places FILE
          greeting suggestions: time to load and index the gazetteer FILE, and the nearest-place lookup
          p50/p99 over 200,000 seeded positions.
        """)
    exit(0)
}

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let directory = URL(fileURLWithPath: option("--dir") ?? ".data/printing-bench")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let photoURL = directory.appendingPathComponent("photo.jpg")
if !FileManager.default.fileExists(atPath: photoURL.path) {
    try Data(BenchPhoto.jpeg()).write(to: photoURL)
}

if let file = option("--places") {
    try PlaceLookups.run(file: file)
    exit(0)
}

if let mode = option("--rss-child") {
    print(try EditSession.peakResident(photo: photoURL, mode: mode))
    exit(0)
}

let runs = Int(option("--runs") ?? "30") ?? 30
let edits: [PostcardEdit] = [
    .brightness(amount: 0.1), .crop(EditRect(x: 0.1, y: 0.1, width: 0.8, height: 0.8)), .filter(.sepia),
]
let recipient = PostalRecipient(
    name: "Åsa Öberg", address: .init(line1: "Storgatan 1", city: "Lund", postalCode: "223 50", country: "SE"))

/// Reads, decodes (at the scale the target needs), edits and draws one card, as the service does.
func render(size: CardSize, dpi: Double, preview: Bool) throws -> Int {
    let bytes = try [UInt8](Data(contentsOf: photoURL))
    let scale = PostcardContent.decodeScale(
        width: BenchPhoto.width, height: BenchPhoto.height, size: size, edits: edits, dpi: dpi)
    let pixels = try PixelDecoder.decode(bytes, format: .jpeg, minimumScale: scale)
    let content = PostcardContent(
        size: size, image: pixels, greeting: "Hälsningar från Lund", recipient: recipient, edits: edits)
    return preview
        ? PostcardRenderer.preview(content, side: .front, dpi: dpi).count : PostcardRenderer.pdf(content).count
}

if arguments.contains("--breakdown") {
    let clock = ContinuousClock()
    let bytes = try [UInt8](Data(contentsOf: photoURL))
    for (name, size, dpi) in [("preview", CardSize.a6, 100.0), ("print", .a6, 300)] {
        let scale = PostcardContent.decodeScale(
            width: BenchPhoto.width, height: BenchPhoto.height, size: size, edits: edits, dpi: dpi)
        var pixels = try PixelDecoder.decode(bytes, format: .jpeg, minimumScale: scale)
        let decode = try clock.measure { pixels = try PixelDecoder.decode(bytes, format: .jpeg, minimumScale: scale) }
        let content = PostcardContent(size: size, image: pixels, greeting: "Hej", recipient: recipient, edits: edits)
        func draw() {
            _ = name == "preview" ? PostcardRenderer.preview(content, side: .front) : PostcardRenderer.pdf(content)
        }
        let first = clock.measure(draw)
        let again = clock.measure(draw)
        let jpegPreview = clock.measure { _ = PostcardRenderer.preview(content, side: .front, jpeg: true) }
        print(
            "\(name): decode \(pixels.width)x\(pixels.height) \(decode); edits + draw + encode \(first); "
                + "again with the edits cached \(again); front as a JPEG preview \(jpegPreview)")
    }
    exit(0)
}

let pool = DedicatedThreadPool(name: "render", threads: 1)
func timed(_ body: @escaping @Sendable () throws -> Int) async throws -> Latencies {
    try await pool.run { try Latencies.measure(runs: runs, cpu: Latencies.threadCPU) { _ = try body() } }
}

let pdfBytes = try render(size: .a6, dpi: PostcardContent.printDPI, preview: false)
let pdf = try await timed { try render(size: .a6, dpi: PostcardContent.printDPI, preview: false) }
let preview = try await timed { try render(size: .a6, dpi: PreviewHandler.dpi, preview: true) }
let childOutput = try EditSession.runChild(directory: directory)

func format(_ value: Double) -> String { String(format: "%.1f", value) }
// Scaled copies (GET /v1/images/{id}/content?w=): the first request makes the JPEG, a repeat
// reads the kept file.
let photoBytes = try [UInt8](Data(contentsOf: photoURL))
var variantRows: [String] = []
for width in Printing.ImageContent.widths {
    let variant = try ImageVariant(
        width: width, imageWidth: BenchPhoto.width, imageHeight: BenchPhoto.height, sha256: "bench")
    let jpeg = try ImageVariantHandler.make(photoBytes, format: .jpeg, orientation: 1, variant: variant)
    let keptURL = directory.appendingPathComponent("variant-\(width).jpg")
    try Data(jpeg).write(to: keptURL)
    let first = try await timed {
        let bytes = try [UInt8](Data(contentsOf: photoURL))
        return try ImageVariantHandler.make(bytes, format: .jpeg, orientation: 1, variant: variant).count
    }
    let again = try await timed { try Data(contentsOf: keptURL).count }
    let target = width == 128 ? "p95 < 30" : ""
    let eighths = (1...8).first { Double($0) / 8 >= variant.decodeScale } ?? 8
    variantRows.append(
        "| w=\(width) first request (read, decode at \(eighths)/8, "
            + "scale to \(variant.width)x\(variant.height), JPEG; \(jpeg.count) bytes) | \(format(first.p50)) | "
            + "\(format(first.p95)) | \(format(first.cpuP50)) | \(target) |")
    variantRows.append(
        "| w=\(width) repeat (the kept file read) | \(format(again.p50)) | \(format(again.p95)) | "
            + "\(format(again.cpuP50)) | \(target) |")
}
print("printing-bench: \(BenchPhoto.width)x\(BenchPhoto.height) JPEG (\(try Data(contentsOf: photoURL).count) bytes)")
print("edits: brightness +0.1, crop x 0.1 y 0.1 w 0.8 h 0.8, filter sepia; \(runs) runs after one warm-up")
print("| what | p50 ms | p95 ms | CPU p50 ms | target |")
print("|---|---:|---:|---:|---|")
print(
    "| A6 print PDF (read, decode, edits, 2 pages; \(pdfBytes) bytes) | \(format(pdf.p50)) | \(format(pdf.p95)) | "
        + "\(format(pdf.cpuP50)) | p95 < 200 |")
print(
    "| A6 preview PNG 583x413 (read, decode, edits, draw) | \(format(preview.p50)) | \(format(preview.p95)) | "
        + "\(format(preview.cpuP50)) | p95 < 100 |")
print("scaled copies (thumbnails, screen sizes) of the same photo:")
print("| what | p50 ms | p95 ms | CPU p50 ms | target |")
print("|---|---:|---:|---:|---|")
for row in variantRows { print(row) }
print(childOutput)

guard let vipsURL = Vips.find() else {
    print("vips: not on the PATH (apt-get install libvips-tools; make bench-printing does it); no ratios")
    exit(0)
}
let vips = Vips(executable: vipsURL, directory: directory)
try "3 3\n0.393 0.769 0.189\n0.349 0.686 0.168\n0.272 0.534 0.131\n".write(
    to: directory.appendingPathComponent("sepia.mat"), atomically: true, encoding: .utf8)
let (cropX, cropY, cropWidth, cropHeight) = ("326", "245", "2611", "1958")
let vipsPrint = try Latencies.measure(runs: runs, cpu: Latencies.childrenCPU) {
    try vips.pipeline([
        ["crop", "photo.jpg", "a.v", cropX, cropY, cropWidth, cropHeight],
        ["linear", "a.v", "b.v", "1", "25.5", "--uchar"],
        ["recomb", "b.v", "print.jpg[Q=92]", "sepia.mat"],
    ])
}
let vipsPreview = try Latencies.measure(runs: runs, cpu: Latencies.childrenCPU) {
    try vips.pipeline([
        ["crop", "photo.jpg[shrink=4]", "a.v", "82", "61", "653", "490"],
        ["thumbnail_image", "a.v", "b.v", "583", "--height", "413", "--crop", "centre"],
        ["linear", "b.v", "c.v", "1", "25.5", "--uchar"],
        ["recomb", "c.v", "preview.png", "sepia.mat"],
    ])
}
print("\(try vips.version()) on the same file, the same edits, one process per step, .v files between:")
print("| what | vips p50 ms | vips p95 ms | vips CPU p50 ms | ours/vips p50 | ours/vips p95 | ours/vips CPU |")
print("|---|---:|---:|---:|---:|---:|---:|")
func ratio(_ ours: Double, _ theirs: Double) -> String { String(format: "%.2f", ours / theirs) }
print(
    "| print: crop, linear, recomb, JPEG Q92 | \(format(vipsPrint.p50)) | \(format(vipsPrint.p95)) | "
        + "\(format(vipsPrint.cpuP50)) | \(ratio(pdf.p50, vipsPrint.p50)) | \(ratio(pdf.p95, vipsPrint.p95)) | "
        + "\(ratio(pdf.cpuP50, vipsPrint.cpuP50)) |")
print(
    "| preview: shrink-on-load 1/4, crop, thumbnail 583x413, linear, recomb, PNG | \(format(vipsPreview.p50)) | "
        + "\(format(vipsPreview.p95)) | \(format(vipsPreview.cpuP50)) | \(ratio(preview.p50, vipsPreview.p50)) | "
        + "\(ratio(preview.p95, vipsPreview.p95)) | \(ratio(preview.cpuP50, vipsPreview.cpuP50)) |")
