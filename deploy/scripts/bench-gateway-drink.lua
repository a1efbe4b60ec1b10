-- wrk script for `make bench-gateway`'s drinks target: every request logs a new drink, so each is
-- a real write (201), never the idempotent 200 of a UUID seen before.
--   wrk ... -s bench-gateway-drink.lua URL -- RUN_ID DRANK_AT TOKEN...
-- RUN_ID (a whole number) keeps runs apart; each thread numbers its own drinks and sends them
-- as each TOKEN's user in turn.
local threads = 0

function setup(thread)
    threads = threads + 1
    thread:set("thread_id", threads)
end

function init(args)
    run_id = tonumber(args[1])
    drank_at = args[2]
    tokens = {}
    for i = 3, #args do tokens[#tokens + 1] = args[i] end
    sent = 0
end

function request()
    sent = sent + 1
    local uuid = string.format("%08x-%04x-4000-8000-%012x", run_id, thread_id, sent)
    local body = '{"uuid":"' .. uuid .. '","category":"glass","drankAt":"' .. drank_at .. '"}'
    return wrk.format("POST", nil, {
        ["Authorization"] = "Bearer " .. tokens[sent % #tokens + 1],
        ["Content-Type"] = "application/json",
    }, body)
end
