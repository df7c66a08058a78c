"""The queue the relay connections take recipients from: one recipient on one connection at a time, in order."""

from __future__ import annotations

import threading

from pbem.mail.claimed import ClaimedMail
from pbem.mail.recipient_queue import RecipientQueue


def _mail(number: int, recipient: str) -> ClaimedMail:
    return ClaimedMail(id=number, recipient=recipient, raw=b"", pictures="", attempts=0)


def _ids(mails: list[ClaimedMail] | None) -> list[int]:
    assert mails is not None
    return [mail.id for mail in mails]


def test_recipients_are_taken_in_the_order_of_their_first_mail_with_all_their_mails() -> None:
    queue = RecipientQueue()
    queue.add([_mail(1, "a@x"), _mail(2, "b@x"), _mail(3, "A@x"), _mail(4, "c@x")])
    assert _ids(queue.take()) == [1, 3]  # the address's case does not make another recipient
    assert _ids(queue.take()) == [2]
    assert _ids(queue.take()) == [4]


def test_a_recipient_being_sent_to_is_not_offered_again_until_done() -> None:
    queue = RecipientQueue()
    queue.add([_mail(1, "a@x"), _mail(2, "b@x")])
    first = queue.take()
    queue.add([_mail(3, "a@x"), _mail(4, "c@x")])  # a's next mail comes while a connection sends a's first
    assert _ids(queue.take()) == [2]
    assert _ids(queue.take()) == [4]  # not a's: that would be a second connection for a, out of order
    assert first is not None
    queue.done(first)
    assert _ids(queue.take()) == [3]
    queue.close()
    assert queue.take() is None


def test_take_waits_for_mails_and_ends_once_closed() -> None:
    queue = RecipientQueue()
    taken: list[list[int | None]] = []

    def connection() -> None:
        while (mails := queue.take()) is not None:
            taken.append(_ids(mails))
            queue.done(mails)

    threads = [threading.Thread(target=connection) for _ in range(3)]
    for thread in threads:
        thread.start()
    queue.add([_mail(1, "a@x")])
    queue.add([_mail(2, "b@x"), _mail(3, "a@x")])
    queue.close()
    for thread in threads:
        thread.join(10)
    assert not any(thread.is_alive() for thread in threads)
    assert sorted(number for mails in taken for number in mails if number is not None) == [1, 2, 3]
    # a's two mails together or one after the other, never the later first (taken runs in the order taken)
    a_mails = [number for mails in taken for number in mails if number in (1, 3)]
    assert a_mails == [1, 3]
    assert queue.idle()


def test_stop_hands_back_every_mail_not_taken_and_nothing_more_is_taken() -> None:
    queue = RecipientQueue()
    queue.add([_mail(1, "a@x"), _mail(2, "b@x")])
    sending = queue.take()
    queue.add([_mail(3, "a@x"), _mail(4, "c@x")])
    assert sorted(mail.id or 0 for mail in queue.stop()) == [2, 3, 4]  # a's later mail among them
    assert queue.stopped and queue.take() is None
    assert not queue.add([_mail(5, "d@x")])  # claimed after the relay went down: the caller retries it
    assert sending is not None
    queue.done(sending)
    assert queue.idle()


def test_room_is_when_fewer_recipients_wait_than_the_queue_refills_below() -> None:
    queue = RecipientQueue(refill_below=3)
    queue.add([_mail(number, f"p{number}@x") for number in range(3)])
    assert not queue.wait_for_room(timeout=0.01)
    feeder_woken = threading.Event()

    def feeder() -> None:
        if queue.wait_for_room(timeout=10):
            feeder_woken.set()

    waiting = threading.Thread(target=feeder)
    waiting.start()
    queue.take()  # two left: short, the feeder is woken
    waiting.join(10)
    assert feeder_woken.is_set()
    queue.stop()
    assert not queue.wait_for_room(timeout=0.01)  # stopped: no room for anything
