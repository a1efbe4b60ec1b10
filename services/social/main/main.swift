import ServiceKit
import SocialService

await WorkerHost.main(SocialService.spec, SocialService.definition)
