#!/bin/bash
# lb's health check in docker-compose.yml: a request through HAProxy, healthy once a gateway
# behind it answers /healthz with 200. The image has bash but no HTTP client.
exec 3<>/dev/tcp/127.0.0.1/8080 || exit 1
printf 'GET /healthz HTTP/1.0\r\nHost: lb\r\n\r\n' >&3
read -r -t 2 status <&3 || exit 1
[[ $status == "HTTP/1."?" 200"* ]]
