-- Advances the sequence KEYS[1] to ARGV[1] when it is the next number.
-- Returns {1, expected} when applied, {0, expected} otherwise.
local last = redis.call('GET', KEYS[1])
local expected = 1
if last then expected = tonumber(last) + 1 end
if tonumber(ARGV[1]) == expected then
  redis.call('SET', KEYS[1], ARGV[1])
  return {1, expected}
end
return {0, expected}
