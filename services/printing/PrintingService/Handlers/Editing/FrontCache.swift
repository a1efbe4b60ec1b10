import Synchronization

/// The edited front of one ``PostcardContent``, made the first time a side is drawn and shared by
/// its copies (a job's cards differ only in the recipient), so the edits and the JPEG for the PDF
/// are done once per card design. Changing the content's image, orientation or edits starts a new
/// cache.
final class FrontCache: Sendable {
    private let state = Mutex<(front: EditedFront?, jpeg: [UInt8]?)>((nil, nil))

    /// The edited front, made by `make` on first use.
    func front(_ make: () -> EditedFront) -> EditedFront {
        state.withLock { state in
            if let front = state.front { return front }
            let front = make()
            state.front = front
            return front
        }
    }

    /// The front's JPEG for PDFs, encoded on first use.
    func jpeg(of front: EditedFront) -> [UInt8]? {
        state.withLock { state in
            if let jpeg = state.jpeg { return jpeg }
            state.jpeg = front.jpeg()
            return state.jpeg
        }
    }
}
