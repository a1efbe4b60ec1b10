package enum GatewayPlaceholder {}
