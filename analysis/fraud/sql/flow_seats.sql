-- Each seat's side, role and result share: what the chip-flow fits are computed from.
select game, variant, hand_id, player, side, role, u from fraud_seats order by game, variant, hand_id, seat
