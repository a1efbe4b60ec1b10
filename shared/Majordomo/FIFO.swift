/// A first-in-first-out queue with O(1) push and pop at both ends' common uses.
struct FIFO<Element> {
    private var storage: [Element?] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: Element) { storage.append(element) }

    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Puts an element back at the front (a request whose worker went away).
    mutating func prepend(_ element: Element) {
        if head > 0 {
            head -= 1
            storage[head] = element
        } else {
            storage.insert(element, at: 0)
        }
    }

    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        storage = storage[head...].filter { $0.map { !shouldRemove($0) } ?? false }
        head = 0
    }

    func forEach(_ body: (Element) -> Void) {
        for element in storage[head...] { if let element { body(element) } }
    }
}
