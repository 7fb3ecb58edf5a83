-- Each seat's side and result share: what the chip-flow fits are computed from.
select game, variant, hand_id, player, side, u from fraud_seats order by game, variant, hand_id, seat
