-- Completes KEYS[1] for owner ARGV[1], keeping it ARGV[2] ms; ARGV[3] is this writer's grace in
-- ms, added to the TTL. ARGV[4], when given, is the result to keep (any bytes, maybe none): it
-- follows the record's header after a newline. A record that still exists is inside its own grace.
-- Returns 1 when the owner holds (or already completed) the record, 0 otherwise.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local state, exp, owner, fp = string.match(v, '^(%a) (%d+) (%S+) ?(%S*)')
if owner ~= ARGV[1] then return 0 end
if state == 'C' then return 1 end
local keep = tonumber(ARGV[2])
local value = 'C ' .. string.format('%.0f', now + keep) .. ' ' .. owner
if fp ~= '' then value = value .. ' ' .. fp end
if #ARGV >= 4 then value = value .. '\n' .. ARGV[4] end
redis.call('SET', KEYS[1], value, 'PX', string.format('%.0f', keep + tonumber(ARGV[3])))
return 1
