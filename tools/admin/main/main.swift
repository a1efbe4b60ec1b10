import AdminKit

await BackplaneAdmin.start()
