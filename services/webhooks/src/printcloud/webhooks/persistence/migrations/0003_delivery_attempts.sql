-- Every attempt of a delivery, for the delivery log; the delivery row keeps the last one's answer.
CREATE TABLE delivery_attempts (
    delivery_id uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    attempt integer NOT NULL,
    sent_at timestamptz NOT NULL,
    response_code integer,
    response_body_excerpt text NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);
