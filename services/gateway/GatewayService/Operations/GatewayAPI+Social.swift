import Contract
import Foundation
import OpenAPIRuntime
import ServiceKit
import SocialContract

/// Gifter's people and catalogue, answered by `social`: friends, friend requests, blocks and
/// the product catalogue.
extension GatewayAPI {
    func listFriends(_ input: Operations.ListFriends.Input) async throws -> Operations.ListFriends.Output {
        let reply = try await callAsCaller(
            Social.ListFriends.self, .init(cursor: input.query.cursor, limit: input.query.limit))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func removeFriend(_ input: Operations.RemoveFriend.Input) async throws -> Operations.RemoveFriend.Output {
        _ = try await callAsCaller(Social.RemoveFriend.self, .init(userId: input.path.userId))
        return .noContent(.init())
    }

    func listFriendRequests(_ input: Operations.ListFriendRequests.Input) async throws
        -> Operations.ListFriendRequests.Output
    {
        let direction: Social.Direction = input.query.direction == .outgoing ? .outgoing : .incoming
        let reply = try await callAsCaller(
            Social.ListFriendRequests.self,
            .init(direction: direction, limit: input.query.limit, cursor: input.query.cursor))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func sendFriendRequest(_ input: Operations.SendFriendRequest.Input) async throws
        -> Operations.SendFriendRequest.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callAsCaller(Social.SendFriendRequest.self, .init(userId: body.userId))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func cancelFriendRequest(_ input: Operations.CancelFriendRequest.Input) async throws
        -> Operations.CancelFriendRequest.Output
    {
        _ = try await callAsCaller(Social.CancelFriendRequest.self, .init(userId: input.path.userId))
        return .noContent(.init())
    }

    func acceptFriendRequest(_ input: Operations.AcceptFriendRequest.Input) async throws
        -> Operations.AcceptFriendRequest.Output
    {
        let reply = try await callAsCaller(Social.AcceptFriendRequest.self, .init(userId: input.path.userId))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func declineFriendRequest(_ input: Operations.DeclineFriendRequest.Input) async throws
        -> Operations.DeclineFriendRequest.Output
    {
        _ = try await callAsCaller(Social.DeclineFriendRequest.self, .init(userId: input.path.userId))
        return .noContent(.init())
    }

    func blockUser(_ input: Operations.BlockUser.Input) async throws -> Operations.BlockUser.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        _ = try await callAsCaller(Social.BlockUser.self, .init(userId: body.userId))
        return .noContent(.init())
    }

    func unblockUser(_ input: Operations.UnblockUser.Input) async throws -> Operations.UnblockUser.Output {
        _ = try await callAsCaller(Social.UnblockUser.self, .init(userId: input.path.userId))
        return .noContent(.init())
    }

    func searchCatalog(_ input: Operations.SearchCatalog.Input) async throws -> Operations.SearchCatalog.Output {
        let query = input.query
        let reply = try await callAsCaller(
            Social.SearchCatalog.self,
            .init(
                q: query.q, category: query.category, minPrice: query.minPrice, maxPrice: query.maxPrice,
                limit: query.limit, cursor: query.cursor))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func getCatalogItem(_ input: Operations.GetCatalogItem.Input) async throws -> Operations.GetCatalogItem.Output {
        let item = try await callAsCaller(Social.GetCatalogItem.self, .init(id: input.path.id))
        return .ok(.init(body: .json(try OrdersJSON.convert(item))))
    }

    func searchUsers(_ input: Operations.SearchUsers.Input) async throws -> Operations.SearchUsers.Output {
        let reply = try await callAsCaller(
            Social.SearchUsers.self, .init(q: input.query.q, limit: input.query.limit, cursor: input.query.cursor))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func getAddresses(_ input: Operations.GetAddresses.Input) async throws -> Operations.GetAddresses.Output {
        .ok(.init(body: .json(try OrdersJSON.convert(try await callAsCaller(Social.GetAddresses.self, Empty())))))
    }

    func setAddresses(_ input: Operations.SetAddresses.Input) async throws -> Operations.SetAddresses.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let request: Social.Addresses = try OrdersJSON.convert(body)
        return .ok(.init(body: .json(try OrdersJSON.convert(try await callAsCaller(Social.SetAddresses.self, request)))))
    }

    func getPrivacy(_ input: Operations.GetPrivacy.Input) async throws -> Operations.GetPrivacy.Output {
        .ok(.init(body: .json(try OrdersJSON.convert(try await callAsCaller(Social.GetPrivacy.self, Empty())))))
    }

    func setPrivacy(_ input: Operations.SetPrivacy.Input) async throws -> Operations.SetPrivacy.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callAsCaller(
            Social.SetPrivacy.self,
            .init(findableByContact: body.findableByContact, findableByName: body.findableByName))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func listFavourites(_ input: Operations.ListFavourites.Input) async throws -> Operations.ListFavourites.Output {
        let reply = try await callAsCaller(
            Social.ListFavourites.self, .init(cursor: input.query.cursor, limit: input.query.limit))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func addFavourite(_ input: Operations.AddFavourite.Input) async throws -> Operations.AddFavourite.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callAsCaller(Social.AddFavourite.self, .init(itemId: body.itemId, note: body.note))
        let favourite: Components.Schemas.Favourite = try OrdersJSON.convert(reply.favourite)
        return reply.created ? .created(.init(body: .json(favourite))) : .ok(.init(body: .json(favourite)))
    }

    func removeFavourite(_ input: Operations.RemoveFavourite.Input) async throws -> Operations.RemoveFavourite.Output {
        _ = try await callAsCaller(Social.RemoveFavourite.self, .init(itemId: input.path.itemId))
        return .noContent(.init())
    }

    func friendFavourites(_ input: Operations.FriendFavourites.Input) async throws
        -> Operations.FriendFavourites.Output
    {
        let reply = try await callAsCaller(
            Social.FriendFavourites.self,
            .init(userId: input.path.userId, limit: input.query.limit, cursor: input.query.cursor))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func listContacts(_ input: Operations.ListContacts.Input) async throws -> Operations.ListContacts.Output {
        let query = input.query
        let reply = try await callAsCaller(
            Social.ListContacts.self,
            .init(
                q: query.q, sort: query.sort.flatMap { Social.ContactOrder(rawValue: $0.rawValue) },
                limit: query.limit, cursor: query.cursor))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func addContact(_ input: Operations.AddContact.Input) async throws -> Operations.AddContact.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let contact = try await callAsCaller(Social.AddContact.self, try OrdersJSON.convert(body))
        return .created(.init(body: .json(try OrdersJSON.convert(contact))))
    }

    func updateContact(_ input: Operations.UpdateContact.Input) async throws -> Operations.UpdateContact.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let contact = try await callAsCaller(
            Social.UpdateContact.self, .init(id: input.path.id, fields: try OrdersJSON.convert(body)))
        return .ok(.init(body: .json(try OrdersJSON.convert(contact))))
    }

    func deleteContact(_ input: Operations.DeleteContact.Input) async throws -> Operations.DeleteContact.Output {
        _ = try await callAsCaller(Social.DeleteContact.self, .init(id: input.path.id))
        return .noContent(.init())
    }
}
