-- Hands the pair shared, latest first.
select a.hand_id from fraud_seats a
join fraud_seats b on b.game = a.game and b.hand_id = a.hand_id
where a.player = $a and b.player = $b and a.game = $g
order by a.ts desc, a.hand_id limit $limit
