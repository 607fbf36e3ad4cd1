-- The life of the broker's log each row was sent in (`printcloud.core.broker_epoch`): a broker
-- that lost its log gets every row sent in an earlier life again.
ALTER TABLE outbox ADD COLUMN sent_epoch text;
