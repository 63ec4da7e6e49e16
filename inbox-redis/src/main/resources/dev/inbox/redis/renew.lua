-- Renews KEYS[1] for owner ARGV[1] when it holds it IN_PROGRESS: the lease ends ARGV[2] ms from
-- now; ARGV[3] is this writer's grace in ms, added to the TTL. A record that still exists is
-- inside its own grace. Returns 1 when renewed, 0 otherwise (and then nothing changed).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local state, exp, owner, fp = string.match(v, '^(%a) (%d+) (%S+) ?(%S*)$')
if state ~= 'I' or owner ~= ARGV[1] then return 0 end
local lease = tonumber(ARGV[2])
local value = 'I ' .. string.format('%.0f', now + lease) .. ' ' .. owner
if fp ~= '' then value = value .. ' ' .. fp end
redis.call('SET', KEYS[1], value, 'PX', string.format('%.0f', lease + tonumber(ARGV[3])))
return 1
