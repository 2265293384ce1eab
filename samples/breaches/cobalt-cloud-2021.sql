--
-- PostgreSQL database dump
-- FICTITIOUS sample data (LeakWell samples/breaches): no real people.
--

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;

CREATE TABLE public.accounts (
    id integer NOT NULL,
    email text NOT NULL,
    full_name text,
    company text,
    password_hash text NOT NULL,
    last_login_ip inet,
    created_at timestamp with time zone
);

COPY public.accounts (id, email, full_name, company, password_hash, last_login_ip, created_at) FROM stdin;
1	carol@example.net	Carol Mendes	Initech Sample	$2b$10$5O5zzeZurlqrqRAVXez7gLBd/Th5FyOwzxDcdUmkNSvCdV3uWoOHr	198.51.100.178	2018-04-15 10:48:00+00
2	nils.nettleby@mail.example	Nils Nettleby	Umbrella Test	$2b$10$FFNqlqDAiJXimR4JhMic7PDWaba1KiZea0muCQCPFh9odsieDGBtN	2001:db8:895::10fe	2020-12-01 10:48:00+00
3	amos.westmarch@mail.example	Amos Westmarch	Acme Widgets	$2b$10$nZvoVc7vSGGmk7tT9smOO.1ot8XtoxBR4qnatujXZHr4U5LeyTeEC	2001:db8:619f::cdf3	2020-06-02 10:13:00+00
4	zora.brackens3@mail.example	Zora Brackens	Acme Widgets	$2b$10$QF1.Po./VOjgYqthnH8DNqzrXYKa1EvIQshvo0AG8XNFsSDtDW6dh	203.0.113.232	2021-11-22 10:33:00+00
5	hugo.kestrel@example.com	Hugo Kestrel	\N	$2b$10$v7TAT6nwirnsI2B./tF3Cr0JNPWn4kg3th4bpVs/11YXpy30shPRn	192.0.2.203	2021-10-21 10:27:00+00
6	dana.birchley82@example.net	Dana Birchley	Umbrella Test	$2b$10$a/TOtGORHi0SfvjbEym7GfCx6/pZY2vqhecaX6/TGM9oBiniyTCee	2001:db8:d3f4::656a	2020-03-27 10:13:00+00
7	lena.kestrel84@example.org	Lena Kestrel	Umbrella Test	$2b$10$InXdJxAxRHowWdY8l4aFIGIwekApFkbP.Acjpj9r7gKpv2kkajFNP	2001:db8:2ed1::f859	2018-06-03 10:47:00+00
8	pavel.vale@example.net	Pavel Vale	Globex Example	$2b$10$6fmiSixOnBa6iVNXjORC42S9xlAxL/y8ZyZ9Wj48gY4AoDHtXjov2	2001:db8:b226::5118	2018-02-27 10:23:00+00
9	edith.coldwater@post.test	Edith Coldwater	Umbrella Test	$2b$10$VMWx5mlX2uRFsVQaIOAYnoSHCji5rAOTqll8xSP1XvCwYENeUP0uR	203.0.113.96	2019-04-04 10:12:00+00
10	gil.greyfield@example.org	Gil Greyfield	Umbrella Test	$2b$10$5oDu5L6yACqnEd/iosMre324zpHWTBrePyjS98Ny9aAfAgLNF7fLC	2001:db8:3bf7::12e	2018-06-17 10:23:00+00
11	vera.larkspur64@mail.example	Vera Larkspur	\N	$2b$10$OaOPptICu5xNm0wzmAl/IM4DGhvaIX974j5eKVWHdSFgCyEn3arOh	192.0.2.172	2020-05-01 10:34:00+00
12	hana.brackens21@mail.example	Hana Brackens	Umbrella Test	$2b$10$rem6OCcTuTzrhb.MZpw94tymOM3394vqHy6lEJ/eAsNSmVP0vBDZd	198.51.100.214	2021-05-28 10:43:00+00
13	fern.juniper5@example.net	Fern Juniper	Umbrella Test	$2b$10$Inr7dFKDFvWZ4WSxG.FFWqsBJhKFWoSutgwSg2pkls1.3ElKdyfor	203.0.113.109	2020-02-11 10:49:00+00
14	kai.oakhurst@example.net	Kai Oakhurst	Acme Widgets	$2b$10$HXc51t10G8GKsWHm1mczt5KrE.m2wn67/ZlTSf4KOka/tR7Ekp.ze	2001:db8:6b77::75d1	2019-08-23 10:13:00+00
15	ben.driftwood@example.net	Ben Driftwood	\N	$2b$10$uvAKGP84N1Co.qUh9nHTohcbkJXZmPQc0WSSodiw7m3JSM68ko1ou	2001:db8:28ec::aa0a	2020-05-19 10:28:00+00
16	iris.fairbank@example.com	Iris Fairbank	Acme Widgets	$2b$10$iPO8a/7Hx2iV9erDE3f0NbTE4D7pzbqC0vYFvqn0Ftjg6wBPYOTvm	198.51.100.252	2021-06-28 10:30:00+00
17	hugo.stonebridge@example.com	Hugo Stonebridge	Initech Sample	$2b$10$kwqw4fdablakcwABxXu/PHgfDFwOhrEdYNM61lVBmYchtbeOJ1MGz	198.51.100.186	2019-05-09 10:40:00+00
18	bea.yarrow@example.net	Bea Yarrow	Acme Widgets	$2b$10$ocs55jMxh.5r7f3GztxU/f7ec1sBu1ZcIw7i/UviEezpCHFZw/htp	203.0.113.19	2018-05-08 10:33:00+00
19	dario.emberton55@example.org	Dario Emberton	Acme Widgets	$2b$10$podP7QXVJNTFTz7U/ycosBtC.SL2XJu44T47BgDLrp2SRnqoxo1Z7	2001:db8:a369::d45	2020-01-10 10:21:00+00
20	hana.nettleby@inbox.example	Hana Nettleby	\N	$2b$10$Wd9iSqAtbXOwBcw23I7V9MaDPlRS4eCQpqffLwKQX2Gm.UXrn0VpO	198.51.100.107	2019-09-02 10:59:00+00
21	vera.ashdown@post.test	Vera Ashdown	Umbrella Test	$2b$10$AIIpBGq6/8SWUTOCI/mCeiX3fh7yTPJt8bNTjeiH4MfvgmsfIlnyf	198.51.100.193	2020-03-14 10:27:00+00
22	dana.thistle67@mail.example	Dana Thistle	Umbrella Test	$2b$10$huVgEJM.lF50to.3c98BcCO6bwPlHEYAXC/6uOQrCsOEMvZYaLQUc	203.0.113.182	2020-09-12 10:49:00+00
23	greta.juniper@example.com	Greta Juniper	Initech Sample	$2b$10$I/lFxImxGRUocTCH4ZkzLJssF9zeB7vay64e9rIHjFBqF/ugXLL.i	203.0.113.74	2021-07-19 10:49:00+00
24	kai.nettleby@example.org	Kai Nettleby	Initech Sample	$2b$10$4MpWs6j/FZrepnH89JPbC02PImoPztFwaoxoaitZrkB69AN6DrjxR	192.0.2.171	2020-05-23 10:41:00+00
25	leo.copperfield@post.test	Leo Copperfield	\N	$2b$10$nvUuQz8Yv.OvfaXlHh4KXx0v/XPq569AMrFcXeedNP3WQe7RZG77t	198.51.100.164	2020-03-09 10:23:00+00
26	jonas.rookwood@mail.example	Jonas Rookwood	Globex Example	$2b$10$Ykd3gamJWB.Ztbmud0/Uq86mN3ntdnhhriCvyN7.vvmGhM8DQvQtj	2001:db8:86c0::dd9e	2018-05-21 10:16:00+00
27	kira.elmsworth@example.org	Kira Elmsworth	Umbrella Test	$2b$10$zEZcrMGxZfp0nJp8ClcMc/3C.M9cTk209Z4.m.g8tDa2ojg.PlAwk	198.51.100.22	2021-01-07 10:51:00+00
28	kai.stonebridge20@example.com	Kai Stonebridge	\N	$2b$10$p6TIYXNluiWO..k1X1JtsNLhuTxZ9eT/Ot/YiJ0zUiXnWg9M1sQec	198.51.100.163	2021-08-18 10:58:00+00
29	kai.juniper@example.com	Kai Juniper	Globex Example	$2b$10$/6In7cE/SPGsJOEsIN4EiQdSA.OJ8AI43Via5/bI9BLZIQP5FV0AU	198.51.100.237	2021-10-20 10:27:00+00
30	bea.birchley@inbox.example	Bea Birchley	Globex Example	$2b$10$6skDcGMcuxI6XV8XJUSgZZnOE5xwe4tDexVujrzBIb2Q2RVnWBsvU	198.51.100.157	2021-01-13 10:34:00+00
31	yusuf.thistle41@inbox.example	Yusuf Thistle	\N	$2b$10$zafbi968487N.F2/rpIDTROSMTbzdY7Kng3O..Q1/2vCnTbnCzo.R	2001:db8:4bcf::3ba3	2021-06-07 10:59:00+00
32	pavel.kestrel@example.com	Pavel Kestrel	Umbrella Test	$2b$10$tUsI.k778e/zVILDgHZzMmBCSXzfAESywJZkwt78eEkOHt0Xhbg0w	203.0.113.100	2019-04-22 10:44:00+00
33	kira.greyfield@example.com	Kira Greyfield	Initech Sample	$2b$10$EFoUaIEx2LVOxHykodtU2wz/WFwgCsjFVpcfmdMUEo7g0bYz7N3si	2001:db8:ac2::56c	2020-05-18 10:31:00+00
34	leo.amberly@inbox.example	Leo Amberly	Globex Example	$2b$10$wx5.K3c/t2r7wyNZtOXGc0KXyEUOx/B7QZT/8kOqiFby20piJpqM5	198.51.100.206	2021-04-07 10:30:00+00
35	umar.zephyr@post.test	Umar Zephyr	Initech Sample	$2b$10$bMMunIc7GVykMzvLBky9Qx1U2ZVwvpkvBDbSblJfAW7x0hH6WmvUZ	2001:db8:433f::69e1	2018-05-27 10:51:00+00
36	sami.ashdown@example.org	Sami Ashdown	\N	$2b$10$.pJwHPfSZoxzXA2OnprVyPBWR/5Ji36iR9/OsISv/eEfxdNGIMPPF	2001:db8:748a::fcbb	2021-09-20 10:46:00+00
37	olga.moorcroft@post.test	Olga Moorcroft	Acme Widgets	$2b$10$HMXzWmQr6pv93XVov.jrUoWzDdkb2HhLs03Efh49EtLqh5YR5LsOv	2001:db8:be81::720f	2019-04-08 10:40:00+00
38	iris.yarrow77@example.com	Iris Yarrow	Globex Example	$2b$10$eS/5mUvog88Y9Kogm/A9d7TGmKOxhB9BVMZk.ECZ6LJkYve5RVzbD	198.51.100.29	2021-04-09 10:57:00+00
39	cyril.amberly@example.com	Cyril Amberly	Initech Sample	$2b$10$fq0q8Fnw.MPxCmVD8cjgXr6gPeG4kW3x.XIR520tCVEbx8CikL2I1	198.51.100.226	2021-07-17 10:32:00+00
40	fern.ivorydale@example.org	Fern Ivorydale	\N	$2b$10$k6LziS6fcfoG8lgXnYJ1SPTt50V0JO3Mc6KqFkcYKtYZjJIuKmLQY	2001:db8:739b::3f2e	2018-03-19 10:59:00+00
41	rosa.underhill60@post.test	Rosa Underhill	Globex Example	$2b$10$u805sn.1ZcQkwnqJwnrVcux93KM14y.1JIup10K9HrHgPnsgBPQjw	2001:db8:1db1::446f	2019-02-11 10:18:00+00
42	jonas.birchley@example.org	Jonas Birchley	\N	$2b$10$zfqhCSYX5hysTLPmH6vDPLiKXpzF9Lea/l//VoT3V2ftnPyufg7y6	192.0.2.125	2018-01-12 10:37:00+00
43	greta.greyfield@mail.example	Greta Greyfield	Acme Widgets	$2b$10$AiPZvyj1ccfvhU2HztDhetvyN/anxt0KdsIZ7f/3O4FboW9c6ANbZ	198.51.100.189	2018-12-09 10:31:00+00
44	milo.vale13@post.test	Milo Vale	Globex Example	$2b$10$FAg5xf0BeeAfWz2khCeqyb3K.4PCe2KNpEjw87ioQVbBNsbmUp7VT	2001:db8:e96c::631e	2021-01-15 10:55:00+00
45	cleo.stonebridge52@example.com	Cleo Stonebridge	\N	$2b$10$ASh3Wi15v0Whb7xqpOs0kmTSpebRkWDPfUy/PJS1vPvac8VhGzwXN	2001:db8:f163::50b5	2019-03-09 10:46:00+00
46	ada.westmarch27@example.com	Ada Westmarch	\N	$2b$10$QGEWUm7Xz3KXN6Oqt8vxWdzdP1SPvM3p.2D/55vyq3D3R3qOcXY9e	2001:db8:aaa::e4f6	2018-12-15 10:36:00+00
47	umar.nettleby@example.org	Umar Nettleby	Umbrella Test	$2b$10$c7CpDUu/1SRm9HS/sBwRHZ/x3CRQAYKHyaAvpbE6UiFbhEpgTN4hn	192.0.2.13	2021-10-23 10:22:00+00
48	vera.zephyr57@example.org	Vera Zephyr	\N	$2b$10$aQrkiqU8NaAmOG5nBrqukV2VH.E7/E7w3o9VKq6OhzCO/6uU6yhFV	203.0.113.164	2019-10-05 10:21:00+00
49	bea.fairbank71@inbox.example	Bea Fairbank	Acme Widgets	$2b$10$V2Eluo6f543.1x8gCNCJxcCZKfXjZbPh3uam8mieGmJ1e7SzWHxe9	198.51.100.146	2019-05-23 10:35:00+00
50	amos.brackens8@inbox.example	Amos Brackens	Globex Example	$2b$10$TZvy1skNCiW5PLcEXnt/E6AN094BUXQi33qYP3I4BhSWI29.GW98c	198.51.100.53	2019-02-23 10:38:00+00
51	olga.rookwood@example.org	Olga Rookwood	Umbrella Test	$2b$10$0VE0s95AMLqE8V6d0jIB0BZOqXY4gNk94OMaJvSoFI7b5ezWbvdJZ	2001:db8:5c23::f309	2020-09-23 10:17:00+00
52	nils.driftwood@post.test	Nils Driftwood	Acme Widgets	$2b$10$dh9WwpjqX13eZ2PnghSpnLacTCXjxSRJ0vx/oD.tGZ8oAqr6ACHB2	2001:db8:7b9d::bf78	2018-08-27 10:26:00+00
53	nora.dunmore37@inbox.example	Nora Dunmore	Globex Example	$2b$10$McXMkSJKXnbF8CPFn/PqsKMglhs2SXiPknRg9In05uur4aC34nXqh	192.0.2.164	2021-03-19 10:49:00+00
54	edith.ivorydale44@example.org	Edith Ivorydale	Initech Sample	$2b$10$27jcZ282cHbN4xWH8.2Ai.SzgSmj/nYgN49gi2tDZR78pvAFUI2fX	203.0.113.199	2020-07-19 10:38:00+00
55	hana.brackens78@example.net	Hana Brackens	\N	$2b$10$pWmHvC.VvDi312ieK8LHJZVvBeMKDnxjJmZi8AsoSBOjbUiOxqraW	198.51.100.204	2019-03-06 10:15:00+00
56	olga.underhill@post.test	Olga Underhill	Initech Sample	$2b$10$1knW8mSryWeHDDqJOUcS4wGKhcWFfQCCpwAVwWV5QYekGxSmiwLhQ	2001:db8:b2ad::21f4	2018-05-21 10:53:00+00
57	mira.thistle51@example.org	Mira Thistle	Initech Sample	$2b$10$lEPxPNGlgB4umd6Fo9yDx7amyQa5KOa6ge5JtHBn2pz45yaAXmu/G	203.0.113.210	2018-04-09 10:43:00+00
58	umar.oakhurst@mail.example	Umar Oakhurst	Initech Sample	$2b$10$Mp8o0e1raBemlEdFTExHRz5c22QmorTK7mm24X/MMSTOQFSX0S24q	198.51.100.47	2019-12-20 10:32:00+00
59	cleo.westmarch@example.com	Cleo Westmarch	\N	$2b$10$xFq/usNgtoMIEgf2MRjyittxl4XhduLk7MkNgZv5b9kjjMcObNDSA	2001:db8:dca1::71c1	2019-10-20 10:50:00+00
60	tess.brackens@example.net	Tess Brackens	Umbrella Test	$2b$10$QZ091ief8iIWO8Y3nlL6BZoYLJjsf2uWWupL414cxKPZKntz5Eg/o	203.0.113.238	2018-10-05 10:35:00+00
61	sami.copperfield@mail.example	Sami Copperfield	Initech Sample	$2b$10$muLL0rl.q7UH./WmFXG9lmNMK..vKsO2HvG2z0of3nTxP.jpyBNmT	203.0.113.25	2018-09-20 10:42:00+00
62	leo.kestrel17@example.com	Leo Kestrel	Umbrella Test	$2b$10$TOUDurBiJcIZ/p.5MsI1cH2ubQL1qLLoGsJ6JA9MplNHyMhIXHZD4	203.0.113.101	2020-06-08 10:19:00+00
63	alice@example.com	Alice Wren	\N	$2b$10$V/5SjLcyU2P3ZlMeTdbjZJNGEs3GlfMIasGRmttfNFlTwITDHFgYq	203.0.113.247	2020-11-16 10:22:00+00
64	gil.westmarch33@inbox.example	Gil Westmarch	Acme Widgets	$2b$10$aw2p19ZHqKTO5//U4.vyZLn3LdEU0Kq3Pl4Oxz4VqpGDROMubh7No	2001:db8:6e4f::58fa	2020-03-27 10:45:00+00
65	sami.larkspur27@example.org	Sami Larkspur	Initech Sample	$2b$10$IqL2oKAljxfEodaY4fqgaKm0m.Ynrm8T1oSgT21fD3tJ4fE/pHWQz	2001:db8:7af8::ba14	2020-04-25 10:23:00+00
66	kai.fairbank@post.test	Kai Fairbank	Initech Sample	$2b$10$q6Mj0GQ9SsNqKmpFyYC3UXjCA5Zk74pkyscuYhe2n5g2ZAprJqYZL	192.0.2.88	2021-09-16 10:52:00+00
67	leo.zephyr@example.com	Leo Zephyr	Acme Widgets	$2b$10$O5C3ky0FaRqd9Zfx95pKbpvk.sjGyBQ6EEPBemdVReTStlNmHUqxC	2001:db8:1b37::bec9	2021-06-05 10:51:00+00
68	dana.kestrel@inbox.example	Dana Kestrel	\N	$2b$10$TOlPJfsf87DGCskIc2cqgJsmUuQELtyHfZeZFkur9Pf3yIOHmCEQv	198.51.100.27	2021-10-01 10:33:00+00
69	hugo.oakhurst@post.test	Hugo Oakhurst	Acme Widgets	$2b$10$trWEzGQ4YNX9ZJOsVcW8BUzbL.j.jnGxBWpJUrZSDhW1./FNQ1BaQ	198.51.100.133	2019-09-17 10:48:00+00
70	dana.oakhurst@example.org	Dana Oakhurst	Acme Widgets	$2b$10$9sPjOJqOMuZc1A/qOCkRz.R/F7SEDkA4ch7ZYBcfOjemlXDFMg1LY	203.0.113.1	2020-10-18 10:47:00+00
71	milo.zephyr@example.net	Milo Zephyr	Globex Example	$2b$10$mYxtAtaBSZuYnztH6ItFcwZKeR0XyZQz9khhjGsoCpUECQLOHmp5b	203.0.113.194	2018-07-02 10:31:00+00
72	pavel.emberton30@mail.example	Pavel Emberton	Initech Sample	$2b$10$Bv70yy1gpktIUYGkbggGyuwou2P90h8ehbcGl.0wL5EcSP/xmdFoC	2001:db8:cf99::2a67	2020-11-08 10:22:00+00
73	ivo.thistle81@example.org	Ivo Thistle	\N	$2b$10$dCkwhVW2ZQiJ08Nrn4we8fQCTjKJ1Yt5sh7qrHrYnNKCWZKT6VNm.	203.0.113.159	2020-05-15 10:34:00+00
74	kira.thistle55@mail.example	Kira Thistle	Initech Sample	$2b$10$4/AirDaGHIpThAmPNyB7TM7nfnY4MlKrrTsl4hjUo/IvMOHIIgImF	203.0.113.165	2021-02-08 10:55:00+00
75	nora.driftwood3@example.org	Nora Driftwood	Globex Example	$2b$10$iqcAfE0YR7PRoYfQllZEagyJZcjl7SLkYZktG0uA7MDCiFy2Tsxah	203.0.113.244	2019-01-04 10:38:00+00
76	ben.greyfield28@mail.example	Ben Greyfield	Acme Widgets	$2b$10$qzCYpxxm4NyGVH/y5b1hdtD6n5qbit/TqmcV2QNJgadxzCc6Aavof	2001:db8:a1ec::42e7	2019-09-18 10:38:00+00
77	ivo.dunmore@mail.example	Ivo Dunmore	\N	$2b$10$LbFfVeYQRgw/dPUd6VjLbCRZuoJ3zT1CKj0Yo5zK2sDz.ddWUz960	192.0.2.51	2019-07-25 10:28:00+00
78	yusuf.emberton@example.com	Yusuf Emberton	Initech Sample	$2b$10$Jgo.mFXtAdGQEaFzstBONK3/U1j2Xacm9BiCPnBtJpInpjZR4XTH.	192.0.2.26	2018-06-28 10:47:00+00
79	kira.thistle97@example.net	Kira Thistle	Acme Widgets	$2b$10$29iXRb9hnkoIIFW/lRouaqqpbNYmgiZuZXG7XGwsxt45TxINib.4C	198.51.100.171	2021-09-11 10:22:00+00
80	greta.zephyr23@example.com	Greta Zephyr	Acme Widgets	$2b$10$GtGqkkQcOjfLAwKHuu5VrZVA7Zu4sff71hkKap1dbAHVmbp3zy..M	198.51.100.18	2019-08-06 10:34:00+00
81	xenia.stonebridge@example.net	Xenia Stonebridge	Initech Sample	$2b$10$5N5T4M0aBMOEeubNvA2mjw7DkSIUbUAztgMC6HQ8.9NfoCwzZnZeG	203.0.113.121	2018-09-05 10:11:00+00
82	milo.amberly24@post.test	Milo Amberly	Acme Widgets	$2b$10$CL5vtju6vh600Q/4a/LeIDUp2s1EDkvHmsunmdMjKn1z86PokA8YO	198.51.100.107	2018-11-22 10:59:00+00
83	cyril.quarry53@example.com	Cyril Quarry	Globex Example	$2b$10$GTsqDGsQgqdH9eJpZm5lUY8nrWNGdSuNqCbfaL41Rjv7IkI0CcxY4	2001:db8:cfa::c9b5	2021-12-08 10:59:00+00
84	leo.driftwood@example.com	Leo Driftwood	Acme Widgets	$2b$10$XlBht5e8kWEZppYLTcAVIBrnzEI7NjM7XTSykDMZfAuj0uvVZkskt	192.0.2.98	2021-03-20 10:36:00+00
85	hana.kestrel15@inbox.example	Hana Kestrel	\N	$2b$10$7K20hp8cxQw1AV6rjmGGSvEKLzOQtKOpbfwHWTemkG6dYc393B5ZV	2001:db8:9e54::d2de	2020-12-12 10:33:00+00
86	leo.stonebridge@inbox.example	Leo Stonebridge	Initech Sample	$2b$10$avvPhnX0frgg3ZXLyaTwUJmnldLC3qi1A58/tq2HN160PPp4BnvVG	192.0.2.20	2021-01-06 10:56:00+00
87	sami.rookwood@example.org	Sami Rookwood	Umbrella Test	$2b$10$Xkf7cdPzjYwo59I6UjMnFT5h83fhcOcUHfbBivTLKlx2jAQHlQkQp	198.51.100.32	2018-03-22 10:50:00+00
88	leo.juniper@example.net	Leo Juniper	\N	$2b$10$9celEFNRhFSvSwv7ZdFKmuy4sFf3lnqAj0ruAnZA1UjeOb6w.bIiu	2001:db8:a766::1982	2020-10-23 10:15:00+00
89	mira.hollins@example.com	Mira Hollins	Umbrella Test	$2b$10$vskKFExYbT610umcuqJUnA6p0WPkJkWjHsUPQK2LVW.VZm1P9AWvk	2001:db8:d9b7::fbbb	2020-04-28 10:15:00+00
90	xenia.underhill@inbox.example	Xenia Underhill	\N	$2b$10$XLCBkrVTHSsyEIXvffzi9mvVoHQKDRDAbo.t9eAoLZB3/l0vyphmk	203.0.113.148	2020-03-12 10:35:00+00
91	bea.brackens@example.com	Bea Brackens	\N	$2b$10$Jc.q2SxiZVUDaqIKm3HfYvwpeImMfIvTMHGLRQM3D7EFvXq4XYnWB	2001:db8:aed8::e49d	2021-02-22 10:28:00+00
92	ivo.brackens@mail.example	Ivo Brackens	Umbrella Test	$2b$10$KQtPMyAu0mfoO/cW71w/oTK5e5KtvFfdW4XGPQzBHSigJ7kgV5xqs	192.0.2.232	2018-10-24 10:43:00+00
93	amos.driftwood26@example.org	Amos Driftwood	Globex Example	$2b$10$nuqOS3bsEdf2MB6hGlaLQt4So.G6o2I0QWLaEofdiRh7WwzX0sOA9	203.0.113.193	2019-05-11 10:36:00+00
94	greta.oakhurst40@example.net	Greta Oakhurst	Acme Widgets	$2b$10$OKdSMoDGa/VeZU1S2ITDd/moINtGDMHHeFY.tYG/UKoLY6ydKKL4y	198.51.100.230	2019-12-15 10:51:00+00
95	nora.emberton17@mail.example	Nora Emberton	\N	$2b$10$Jllam9wENl5UGHbM8gCPHNF6j0K2cp4H9w4oAil/VUy0V5bCsTkox	203.0.113.32	2020-01-27 10:24:00+00
96	rosa.underhill@inbox.example	Rosa Underhill	Initech Sample	$2b$10$2.U0Q2Nl1b4A9F0y65oWQ64kuudEJIXoDcGaAG36DG6vsCca2r4Ww	192.0.2.80	2018-10-26 10:53:00+00
97	wim.fairbank@mail.example	Wim Fairbank	\N	$2b$10$Wqv1jYwEBAS9kmkkDAfpoyZrplMcJNpVvUNqT7eFlZ9MzY9vIR6ve	192.0.2.25	2018-09-07 10:23:00+00
98	greta.oakhurst@example.com	Greta Oakhurst	Umbrella Test	$2b$10$/jj9DepJtp2zAAbrYhNVy0OkFwBvN6YQNeSTiHwnHD3l1iIMFvvt.	203.0.113.94	2021-07-22 10:31:00+00
99	amos.emberton@mail.example	Amos Emberton	Umbrella Test	$2b$10$9RzozxZ/3qWgGE7RM0K/8XIMdO0Wf6ELw01/lsuZzg/kSMv1A09ya	203.0.113.159	2018-05-09 10:58:00+00
100	edith.birchley@example.com	Edith Birchley	Globex Example	$2b$10$zWHavO5Tpvv9bvDAWmbuCAa44nOiFcFmfob0c4bp3whWGRw6n6XO.	2001:db8:25d9::6018	2018-03-02 10:31:00+00
\.

--
-- PostgreSQL database dump complete
--
