#!lua flags=allow-cross-slot-keys
-- Claims keys one after the other: the declared KEYS, then ARGV[2] keys more given in ARGV[3] on
-- (in a Cluster, keys of other slots that this node serves: Redis refuses a declared key of
-- another slot, and fails the script at an undeclared key this node does not serve, so no record is
-- ever written where it does not live). ARGV[1] is this writer's grace in ms; after the keys come,
-- for each key in order, its owner, its lease in ms and its fingerprint ('' for none). Time is the
-- server's. The record is 'I|C <expires ms> <owner> [fp]', for a COMPLETED record that keeps a
-- result followed by a newline and the result's bytes, kept until expiry + its writer's grace by
-- its TTL: a record that still exists is inside its own grace, whatever the grace of the instance
-- claiming now. A record the store wrote without a script (its new-key claim: a plain SET NX GET,
-- no clock) holds 9e15 + its writer's grace in ms where the expiry goes: its lease ends when its
-- TTL falls to that grace (code from before read it as an expiry far ahead: busy until the TTL
-- ends, never taken early). Returns one reply per key: {1, takeover, new key} acquired, {2, late,
-- fingerprint check, ms past expiry[, result]} duplicate (ms past expiry negative while the
-- retention runs), {3} busy.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local grace = tonumber(ARGV[1])

local function record(owner, lease, fp)
  local value = 'I ' .. string.format('%.0f', now + lease) .. ' ' .. owner
  if fp ~= '' then value = value .. ' ' .. fp end
  return value, string.format('%.0f', lease + grace)
end

local function claim(key, owner, lease, fp)
  local value, ttl = record(owner, lease, fp)
  -- One command for the common cases: a new key is written, an existing one only read.
  local v = redis.pcall('SET', key, value, 'NX', 'GET', 'PX', ttl)
  if type(v) == 'table' and v.err then
    return redis.error_reply('the inbox claim needs Redis 7.0 or newer (SET NX GET): ' .. v.err)
  end
  if not v then return {1, 0, 1} end
  local result = nil
  local nl = string.find(v, '\n', 1, true)
  if nl then
    result = string.sub(v, nl + 1)
    v = string.sub(v, 1, nl - 1)
  end
  local state, exp, old, oldfp = string.match(v, '^(%a) (%d+) (%S+) ?(%S*)$')
  exp = tonumber(exp)
  if exp >= 9e15 then exp = now + redis.call('PTTL', key) - (exp - 9e15) end
  if state == 'C' then
    local check = 0
    if oldfp ~= '' and fp ~= '' then
      if oldfp == fp then check = 1 else check = 2 end
    end
    local late = 0
    if now >= exp then late = 1 end
    if result then return {2, late, check, now - exp, result} end
    return {2, late, check, now - exp}
  end
  local takeover = 0
  if old == owner then
    if fp == '' and oldfp ~= '' then value, ttl = record(owner, lease, oldfp) end
  elseif now < exp then
    return {3}
  else
    takeover = 1
  end
  redis.call('SET', key, value, 'PX', ttl)
  return {1, takeover, 0}
end

local keys = {}
for _, key in ipairs(KEYS) do keys[#keys + 1] = key end
local more = tonumber(ARGV[2])
for i = 1, more do keys[#keys + 1] = ARGV[2 + i] end
local at = 2 + more
local replies = {}
for i, key in ipairs(keys) do
  local base = at + 3 * (i - 1)
  replies[i] = claim(key, ARGV[base + 1], tonumber(ARGV[base + 2]), ARGV[base + 3])
end
return replies
