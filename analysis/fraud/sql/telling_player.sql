-- A player's hands in the longest stretch of play (the bot screen's evidence), latest first.
select hand_id from fraud_seats where player = $a and game = $g and variant = $v
order by hour(to_timestamp(ts)) < 6 desc, ts desc, hand_id limit $limit
