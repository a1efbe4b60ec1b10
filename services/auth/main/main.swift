import AuthService
import ServiceKit

await WorkerHost.main(AuthService.spec, AuthService.definition)
