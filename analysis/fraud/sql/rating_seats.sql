-- Seats in time order with their side and result: what the skill ratings are computed from.
select game, variant, hand_id, ts, player, side, result from fraud_seats order by game, variant, ts, hand_id, seat
